// Command appendrows builds a [][]int64 by appending rows, writes the rows
// through the range value of a parallel loop and through a helper, and
// swaps two matrices' row tables between steps.
package main

import "fmt"

func fill(row []int64, v int64) {
	for j := range row {
		row[j] = v * int64(j+1)
	}
}

func main() {
	const n, m = 50, 40
	var cur, next [][]int64
	for i := 0; i < n; i++ {
		cur = append(cur, make([]int64, m))
		next = append(next, make([]int64, m))
	}
	for step := 0; step < 4; step++ {
		//cape:parallel for schedule(dynamic, 4)
		for i, row := range next {
			for j := range row {
				row[j] = cur[i][j] + int64(i+step)
			}
			if i%7 == 0 {
				fill(next[i][m/2:], int64(step))
			}
		}
		cur, next = next, cur
	}
	var sum, weighted int64
	for i, row := range cur {
		for j, x := range row {
			sum += x
			weighted += x * int64(i*m+j+1)
		}
	}
	fmt.Println(sum, weighted)
}
