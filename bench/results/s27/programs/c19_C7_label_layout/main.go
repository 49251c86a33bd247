package main

import "fmt"

func main() {
	n := 20
	a := make([]int, n)
outer:
	//cape:parallel for
	for i := 0; i < n; i++ {
		for j := 0; j < 10; j++ {
			if j*i > 30 {
				continue outer
			}
			a[i] += j
		}
	}
	fmt.Println(a)
}
