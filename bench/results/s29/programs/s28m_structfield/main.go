package main

import "fmt"

type P struct{ A, B int }

func main() {
	out := make([]int, 8)
	t := P{-1, -1}
	//cape:parallel for private(t)
	for i := 0; i < 8; i++ {
		if i%2 == 0 {
			t.A = i
		} else {
			t = P{i, 10 * i}
		}
		out[i] = t.B
	}
	fmt.Println(out)
}
