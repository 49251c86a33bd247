package main

import "fmt"

type state struct {
	step int
	err  float64
}

func main() {
	n := 32
	u := make([]float64, n)
	v := make([]float64, n)
	var st state
	// hits is made once, inside the loop, and only sequential code writes
	// it: named in the point, its make moves to the arena, and the point
	// notes its type for a restart that adopts an image's allocations.
	var hits []int32
	for it := 0; it < 10; it++ {
		//cape:checkpoint it, u, v, st, hits
		if it == 2 {
			hits = make([]int32, 4)
		}
		st.step = it
		//cape:parallel for
		for i := 1; i < n-1; i++ {
			v[i] = (u[i-1] + u[i+1]) / 2
		}
		u, v = v, u
		if hits != nil {
			hits[it%4]++
		}
	}
	fmt.Println(u[1], st.step, hits)
}
