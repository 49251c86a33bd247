// Command rows smooths the rows of a [][]float64 matrix and prints
// checksums: the layouts Go programmers write for 2-D data, annotated for
// CAPE unchanged.
//
// The matrix's rows are made one by one in a loop; a second matrix's rows
// are sub-slices of one flat backing slice; a [16][16]int64 array of
// arrays counts the elements of the first rows. Each region passes a row to a helper that writes it
// (smooth) or reads it (total). The translator places the outer slices, the
// rows and the array in the arena, so a row header holds the same address on
// every node.
package main

import (
	"flag"
	"fmt"
)

// smooth replaces each inner point of row by the mean of it and its
// neighbours in src.
func smooth(row, src []float64) {
	for j := 1; j < len(row)-1; j++ {
		row[j] = (src[j-1] + src[j] + src[j+1]) / 3
	}
}

// total is the sum of a row.
func total(row []float64) float64 {
	s := 0.0
	for _, x := range row {
		s += x
	}
	return s
}

func main() {
	n := flag.Int("n", 200, "rows")
	m := flag.Int("m", 300, "columns")
	steps := flag.Int("steps", 5, "smoothing steps")
	flag.Parse()

	// Rows made in a loop.
	a := make([][]float64, *n)
	for i := range a {
		a[i] = make([]float64, *m)
		for j := range a[i] {
			a[i][j] = float64((i*31 + j*17) % 101)
		}
	}
	// Rows sub-sliced from one flat backing.
	back := make([]float64, *n**m)
	b := make([][]float64, *n)
	for i := range b {
		b[i] = back[i**m : (i+1)**m]
	}
	var visits [16][16]int64
	sums := make([]float64, *n)

	for s := 0; s < *steps; s++ {
		//cape:parallel for schedule(static)
		for i := 0; i < *n; i++ {
			copy(b[i], a[i])
			smooth(b[i], a[i])
			if i < len(visits) {
				visits[i][s%16] += int64(len(b[i]))
			}
		}
		//cape:parallel for schedule(dynamic, 8)
		for i := range a {
			copy(a[i], b[i])
			sums[i] = total(a[i])
		}
	}

	var sum, weighted float64
	for i, s := range sums {
		sum += s
		weighted += s * float64(i+1)
	}
	var v int64
	for i := range visits {
		for j := range visits[i] {
			v += visits[i][j] * int64(i+j+1)
		}
	}
	fmt.Printf("rows %d×%d, %d steps: sum %.6f weighted %.6f back %.6f visits %d\n",
		*n, *m, *steps, sum, weighted, total(back), v)
}
