package main

import (
	"fmt"
	"os"
)

type Vec []float64

type point struct{ x, y int32 }

var table = make([]int64, 32)

var grid [4][4]float32

var hits = 3

var scratch []byte

// Declared together: the one a region writes moves, the other stays.
var before, after [4]float64

func newGrid(n int) []float64 {
	return make([]float64, n*n)
}

func fill(dst []float64, v float64) {
	for i := range dst {
		dst[i] = v
	}
}

func main() {
	n := 8
	u := newGrid(n)
	w := newGrid(n)
	v := make(Vec, n, 2*n)
	p := new(point)
	q := new([8]int16)
	var pts [8]point
	scratch = make([]byte, 16)
	if len(os.Args) > 5 {
		os.Exit(2)
	}
	for it := 0; it < 2; it++ {
		//cape:parallel for
		for i := 0; i < n; i++ {
			row := w[i*n : (i+1)*n]
			for j := range row {
				row[j] = u[i*n+j] + 1
			}
			fill(v[i:i+1], float64(i))
			table[i] = int64(i)
			grid[i%4][i/4%4] = 1
			pts[i].x = int32(i)
			q[i] = int16(i)
			scratch[i] = byte(i)
		}
		u, w = w, u
	}
	//cape:parallel sections
	{
		//cape:section
		{
			p.x = 7
		}
		//cape:section
		{
			hits = 4
			after[1] = before[2] + 1
		}
	}
	fmt.Println(u[0], v[0], table[1], grid[1][0], pts[3], *p, q[2], hits, scratch[3], after)
	os.Exit(0)
}
