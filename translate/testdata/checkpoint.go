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
	for it := 0; it < 10; it++ {
		//cape:checkpoint it, u, v, st
		st.step = it
		//cape:parallel for
		for i := 1; i < n-1; i++ {
			v[i] = (u[i-1] + u[i+1]) / 2
		}
		u, v = v, u
	}
	fmt.Println(u[1], st.step)
}
