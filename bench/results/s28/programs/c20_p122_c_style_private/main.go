// C-style: the inner counter and temporaries declared before the loop and listed private.
package main

import "fmt"

func main() {
	n, m := 100, 80
	a := make([]float64, n*m)
	rowsum := make([]float64, n)
	var j int
	var s, t float64
	//cape:parallel for private(j, s, t)
	for i := 0; i < n; i++ {
		s = 0
		for j = 0; j < m; j++ {
			t = float64(i*j%7) * 0.5
			a[i*m+j] = t
			s += t
		}
		rowsum[i] = s
	}
	fmt.Println(rowsum[0], rowsum[99], a[99*m+79])
}
