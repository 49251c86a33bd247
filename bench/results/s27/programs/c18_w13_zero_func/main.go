package main

import "fmt"

var _ = fmt.Sprint

func zero() int { return 0 }

func main() {
	a := make([]int, 64)
	z := zero()
	//cape:parallel for
	for i := 0; i < 6; i++ {
		a[i*z] = 5 - i
	}
	fmt.Println(a[:16])
}
