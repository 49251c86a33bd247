package main

import "fmt"

type P struct{ A, B int }

func main() {
	const n = 8
	out := make([]int, n)
	t := P{-1, -1}
	//cape:parallel for firstprivate(t)
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			t.A = i
		} else {
			t = P{i, 10 * i}
		}
		out[i] = t.B
	}
	fmt.Println(out)
}
