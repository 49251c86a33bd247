package main

import "fmt"

func main() {
	n := 50
	a := make([]int, n)
	for i := range a {
		a[i] = i
	}
	//cape:parallel for
	for i := 0; i < n; i++ {
		a[i] = a[0] + a[i] + 1
	}
	fmt.Println(a[n-1], a[0])
}
