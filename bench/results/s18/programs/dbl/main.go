package main

import "fmt"

func dot(a []int64) int64 {
	var s int64
	for k := 0; k < len(a); k++ {
		s += a[k] * a[k]
	}
	return s
}

func main() {
	const n = 300
	x := make([]int64, n)
	r := make([]int64, n)
	for i := range x {
		x[i] = int64(i % 10)
	}
	//cape:parallel for
	for i := 3; i < n; i++ {
		x[i] = x[i] * 2
		r[i] = dot(x[i-3:i+1]) + dot(x[i-3:i+1])
	}
	var s int64
	for _, v := range r {
		s += v
	}
	fmt.Println(s)
}
