package main

import "fmt"

var _ = fmt.Sprint

func main() {
	a := make([]int, 64)
	n := 6
	z := n - n
	//cape:parallel for
	for i := 0; i < 6; i++ {
		if i < 5 {
			a[3+i*z] = 7
		} else {
			a[3+i*z] = 0
		}
	}
	fmt.Println(a[:16])
}
