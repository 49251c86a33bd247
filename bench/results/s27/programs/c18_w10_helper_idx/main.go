package main

import "fmt"

var _ = fmt.Sprint

func main() {
	a := make([]int, 64)
	at := func(i, j int) int { return i*4 + j }
	//cape:parallel for
	for i := 0; i < 6; i++ {
		for j := 0; j <= 4; j++ {
			if j == 0 {
				a[at(i, j)] = 0
			} else {
				a[at(i, j)] = 7
			}
		}
	}
	fmt.Println(a)
}
