package main

import "fmt"

func main() {
	a := make([]int, 16)
	//cape:parallel for
	for i := 0; i < 16; i++ {
		a[i] = 7
		a[i^8] = 0
	}
	fmt.Println(a)
}
