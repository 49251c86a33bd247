package main

import (
	"fmt"
	"sort"
	"strings"
)

func main() {
	rows := [][]float64{{3, 1, 2}, {9, 7, 8}, {5, 6, 4}}
	idx := make([][]int, len(rows))
	for i := 0; i < len(rows); i++ {
		p := []int{0, 1, 2}
		sort.Slice(p, func(a, b int) bool { return rows[i][p[a]] < rows[i][p[b]] })
		idx[i] = p
	}
	words := []string{"b", "a", "c"}
	for k, w := range words {
		n := strings.IndexFunc("abc", func(r rune) bool { return string(r) == w })
		fmt.Print(k, n, " ")
	}
	out := make([]float64, 3)
	//cape:parallel for
	for i := 0; i < 3; i++ {
		out[i] = rows[i][idx[i][0]]
	}
	fmt.Println(idx, out)
}
