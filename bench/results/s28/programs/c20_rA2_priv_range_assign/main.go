package main

import "fmt"

func main() {
	rows := [][]int{{1, 2}, {3}, {}, {5}}
	last := make([]int, len(rows))
	var v int
	//cape:parallel for private(v)
	for i := 0; i < len(rows); i++ {
		for _, v = range rows[i] {
		}
		last[i] = v
	}
	fmt.Println(last)
}
