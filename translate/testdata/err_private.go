package main

import "fmt"

// A region's private buffer of rows may hold rows made in the region, but
// what it holds is traced: here a row on the Go heap, written through it.
func main() {
	var heap [][]float64
	heap = append(heap, append([]float64(nil), 1)) // want "tmp\\[0\\] is written through in the parallel region at err_private.go:15, but its memory comes from append"
	//cape:parallel for
	for i := 0; i < 1; i++ {
		tmp := make([][]float64, 2)
		tmp[0] = heap[0]
		tmp[1] = make([]float64, 1)
		tmp[0][0] = 2
	}
	fmt.Println(heap)
}
