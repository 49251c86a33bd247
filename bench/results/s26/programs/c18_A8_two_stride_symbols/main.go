package main

import "fmt"

func main() {
	n := 8
	rowLen, stride := n, n
	a := make([]float64, n*n)
	for k := range a {
		a[k] = float64(k % 5)
	}
	//cape:parallel for
	for i := 1; i < n; i++ {
		for j := 0; j < rowLen; j++ {
			a[i*stride+j] = a[(i-1)*rowLen+j] + 1
		}
	}
	s := 0.0
	for _, v := range a {
		s += v
	}
	fmt.Println(s)
}
