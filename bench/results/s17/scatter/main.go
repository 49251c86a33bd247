package main

import "fmt"

func main() {
	n := 1 << 21
	perm := make([]int, n)
	for i := range perm {
		perm[i] = (i*7919 + 13) % n
	}
	out := make([]float64, n)
	flag := make([]bool, 1)
	//cape:parallel for
	for i := 0; i < n; i++ {
		out[perm[i]] = float64(i) * 0.5
		if i%1000 == 0 {
			flag[0] = true
		}
	}
	s := 0.0
	for _, v := range out {
		s += v
	}
	fmt.Println(s, flag[0])
}
