package main

import "fmt"

func main() {
	n := 16
	a := make([]int, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		a[n-1-i] = 7
		a[i] = 0
	}
	fmt.Println(a)
}
