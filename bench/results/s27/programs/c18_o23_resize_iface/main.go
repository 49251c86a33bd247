package main

import "fmt"

type Vec []float64

func (v *Vec) Resize(n int) { *v = make(Vec, n) }

type Resizer interface{ Resize(int) }

func prepare(r Resizer, n int) { r.Resize(n) }

func main() {
	var v Vec
	prepare(&v, 6)
	//cape:parallel for
	for i := 0; i < len(v); i++ {
		v[i] = float64(i * 2)
	}
	fmt.Println(v)
}
