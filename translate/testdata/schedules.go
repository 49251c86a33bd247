package main

import "fmt"

func main() {
	n := 100
	chunk := 8
	fmt.Println(chunk)
	a := make([]int32, n)
	//cape:parallel for schedule(static)
	for i := 0; i < n; i++ {
		a[i] = 1
	}
	//cape:parallel for schedule(static, 4)
	for i := 0; i < n; i++ {
		a[i] += 2
	}
	//cape:parallel for schedule(dynamic)
	for i := 0; i < n; i++ {
		a[i] += 3
	}
	//cape:parallel for schedule(dynamic, chunk*2)
	for i := 0; i < n; i++ {
		a[i] += 4
	}
	//cape:parallel for schedule(guided)
	for i := 0; i < n; i++ {
		a[i] += 5
	}
	//cape:parallel for schedule(guided, 3)
	for i := 0; i < n; i++ {
		if a[i] == 0 {
			continue
		}
		a[i] += 6
	}
	fmt.Println(a)
}
