package main

import "fmt"

type Vec []float64

func (v *Vec) Resize(n int) { *v = make(Vec, n) }

func main() {
	var v Vec
	v.Resize(6)
	//cape:parallel for
	for i := 0; i < 6; i++ {
		v[i] = float64(i)
	}
	fmt.Println(v) // go run [0 1 2 3 4 5]; cape run -n 2: [0 1 2 0 0 0], exit 0
}
