package main

import "fmt"

type Cell struct {
	Nbrs []int
	Val  float64
}

func main() {
	cells := make([]Cell, 10)
	for i := range cells {
		var nb []int
		nb = append(nb, i, i+1)
		cells[i].Nbrs = nb
	}
	//cape:parallel for
	for i := 0; i < len(cells); i++ {
		cells[i].Val = float64(cells[i].Nbrs[1])
	}
	fmt.Println(cells[9].Val)
}
