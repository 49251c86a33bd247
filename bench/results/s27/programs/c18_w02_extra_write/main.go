package main

import "fmt"

var _ = fmt.Sprint

func main() {
	a := make([]int, 64)

	//cape:parallel for
	for i := 0; i < 6; i++ {
		a[i*4+4] = 7
		for j := 0; j < 4; j++ {
			a[i*4+j] = 0
		}
	}
	fmt.Println(a)
}
