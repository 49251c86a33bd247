// Command methodvalue writes a shared slice through method values: one
// called in the loop, one handed to a helper that runs the loop.
package main

import "fmt"

type row []float64

func (r row) set(i int, v float64) { r[i] = v }

func (r row) fill(i int) { r[i] += float64(i) / 2 }

func forEach(n int, f func(int)) {
	//cape:parallel for schedule(static, 3)
	for i := 0; i < n; i++ {
		f(i)
	}
}

func main() {
	n := 25
	r := make(row, n)
	set := r.set
	//cape:parallel for
	for i := 0; i < n; i++ {
		set(i, float64(n-i))
	}
	forEach(n, r.fill)
	total := 0.0
	for _, v := range r {
		total += v
	}
	fmt.Println(r, total)
}
