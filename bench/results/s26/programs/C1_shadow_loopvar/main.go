package main

import "fmt"

func main() {
	a := make([]int, 8)
	//cape:parallel for
	for i := 0; i < 8; i++ {
		i := i // the pre-Go-1.22 capture idiom
		a[i] = i * i
	}
	b := make([]int, 8)
	//cape:parallel for
	for j, v := range a {
		v := v
		b[j] = v + 1
	}
	fmt.Println(a, b)
}
