package main

import (
	"fmt"

	"example.com/C1_foreign_value_setter/linalg"
)

func main() {
	n := 6
	v := linalg.VMat{R: n, C: n, Data: make([]float64, n*n)}
	w := linalg.VMat{R: n, C: n, Data: make([]float64, n*n)}
	//cape:parallel for
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v.Set(i, j, float64(i*j))
		}
	}
	//cape:parallel for
	for i := 1; i < n; i++ {
		for j := 0; j < n; j++ {
			w.Set(i, j, v.At(i-1, j)+v.At(i, j))
		}
	}
	fmt.Println(v.Data[n*n-1], w.Data)
}
