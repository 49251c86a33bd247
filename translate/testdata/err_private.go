package main

import "fmt"

// A region's private buffer of rows may hold rows made in the region, but
// what it holds is traced: here a row on the Go heap, written through it.
func main() {
	var heap [][]float64
	heap = append(heap, append([]float64(nil), 1)) // want "an element of type \\[\\]float64 \\(as in tmp\\[0\\]\\) is written through in the parallel region at err_private.go:15, but its memory comes from append"
	//cape:parallel for
	for i := 0; i < 1; i++ {
		tmp := make([][]float64, 2)
		tmp[0] = heap[0]
		tmp[1] = make([]float64, 1)
		tmp[0][0] = 2
	}
	fmt.Println(heap)
}

func set[T any](s []T, i int, v T) { s[i] = v }

// generic stores a heap row through a generic helper.
func generic() {
	rows := make([][]float64, 2)
	for i := range rows {
		rows[i] = make([]float64, 2)
	}
	set(rows, 1, append([]float64(nil), 1)) // want "v is written through in the parallel region at err_private.go:15, but its memory comes from append"
	//cape:parallel for
	for i := range rows {
		rows[i][0] = 1
	}
}
