package main

import "fmt"

type Cell struct {
	Energy float64
	Nbrs   []int
}

func main() {
	cells := make([]*Cell, 10)
	for i := range cells {
		cells[i] = &Cell{Energy: float64(i), Nbrs: []int{(i + 1) % 10}}
	}
	//cape:parallel for
	for i := 0; i < len(cells); i++ {
		cells[i].Energy *= 2
	}
	fmt.Println(cells[3].Energy, cells[3].Nbrs)
}
