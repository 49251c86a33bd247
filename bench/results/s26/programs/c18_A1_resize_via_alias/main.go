package main

import "fmt"

type Vec []float64

func (v *Vec) Resize(n int) { *v = make(Vec, n) }

func main() {
	var v Vec
	pv := &v
	pv.Resize(6)
	//cape:parallel for
	for i := 0; i < len(v); i++ {
		v[i] = float64(i * 2)
	}
	fmt.Println(v)
}
