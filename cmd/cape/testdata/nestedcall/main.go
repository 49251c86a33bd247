// Command nested is a test program: a function with its own parallel
// region (rowStats) is called from inside another parallel loop. As in
// OpenMP without nested parallelism, the inner region runs whole on the
// node that reaches it; the output must equal plain `go run`'s.
package main

import (
	"flag"
	"fmt"
)

// rowStats fills row i of grid and returns its sum (a reduction) and the
// last column written (lastprivate).
func rowStats(grid []int64, i, cols int) (int64, int) {
	var sum int64
	last := -1
	//cape:parallel for reduction(+:sum) lastprivate(last)
	for j := 0; j < cols; j++ {
		v := int64((i*131+j*17)%1009) - 500
		grid[i*cols+j] = v
		sum += v
		last = j
	}
	return sum, last
}

func main() {
	rows := flag.Int("rows", 37, "rows")
	cols := flag.Int("cols", 53, "columns")
	flag.Parse()
	grid := make([]int64, *rows**cols)
	sums := make([]int64, *rows)
	lasts := make([]int64, *rows)
	//cape:parallel for schedule(dynamic, 2)
	for i := 0; i < *rows; i++ {
		s, l := rowStats(grid, i, *cols)
		sums[i] = s
		lasts[i] = int64(l)
	}
	// Outside any region, the same function splits its loop across nodes.
	s, l := rowStats(grid, 3, *cols)
	var check int64
	for _, v := range grid {
		check = check*31 + v
	}
	fmt.Println(sums[:5], lasts[*rows-1], s, l, check)
}
