package main

import "fmt"

var _ = fmt.Sprint

func main() {
	a := make([]int, 64)
	cfg := struct{ Stride int }{0}
	//cape:parallel for
	for i := 0; i < 6; i++ {
		if i < 5 {
			a[i*cfg.Stride] = 7
		} else {
			a[i*cfg.Stride] = 0
		}
	}
	fmt.Println(a[:16])
}
