package main

import "fmt"

func main() {
	blocks := [][3]int{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}
	var views [][]int
	for _, b := range blocks {
		views = append(views, b[:])
	}
	a := make([]int, 6)
	//cape:parallel for
	for i := 0; i < 6; i++ {
		a[i] = i * i
	}
	fmt.Println(views, a)
}
