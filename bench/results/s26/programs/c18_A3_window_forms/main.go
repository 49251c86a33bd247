package main

import "fmt"

var _ = fmt.Sprint

func main() {
	a := make([]int, 64)

	//cape:parallel for
	for i := 0; i < 12; i++ {
		a[i+1] = 7
		a[i] = 0
	}
	fmt.Println(a)
}
