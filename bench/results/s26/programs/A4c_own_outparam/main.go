package main

import "fmt"

func load(dst *[]float64, n int) {
	*dst = make([]float64, n)
	for i := range *dst {
		(*dst)[i] = float64(i + 1)
	}
}

func grow(dst *[]float64) {
	*dst = append(*dst, 7, 8, 9)
}

func main() {
	var vals []float64
	load(&vals, 6)
	//cape:parallel for
	for i := 0; i < len(vals); i++ {
		vals[i] *= 2
	}
	fmt.Println(vals)
	ws := make([]float64, 0, 2)
	grow(&ws)
	//cape:parallel for
	for i := 0; i < len(ws); i++ {
		ws[i] *= 2
	}
	fmt.Println(ws)
}
