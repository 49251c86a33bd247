package main

import "fmt"

var _ = fmt.Sprint

func main() {
	a := make([]int, 64)
	s := 4
	w := s + 1
	//cape:parallel for
	for i := 0; i < 6; i++ {
		for j := 0; j < w; j++ {
			v := 7
			if j == 0 {
				v = 0
			}
			a[i*s+j] = v
		}
	}
	fmt.Println(a)
}
