package main

import "fmt"

var _ = fmt.Sprint

func main() {
	a := make([]int, 64)
	src := []int{0, 7, 7, 7, 7}
	//cape:parallel for
	for i := 0; i < 6; i++ {
		copy(a[i*4:], src)
	}
	fmt.Println(a)
}
