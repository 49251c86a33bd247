package main

import (
	"fmt"

	"example.com/ptr/lib"
)

func main() {
	var vals []float64
	lib.Load(&vals, 6)
	//cape:parallel for
	for i := 0; i < len(vals); i++ {
		vals[i] *= 2
	}
	fmt.Println(vals)
	var p *[4]int
	lib.Fill(&p)
	//cape:parallel for
	for i := 0; i < 4; i++ {
		p[i] *= 10
	}
	fmt.Println(*p)
}
