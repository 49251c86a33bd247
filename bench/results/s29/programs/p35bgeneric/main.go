package main

import "fmt"

func fill[T ~float64 | ~int](x []T, v T) {
	//cape:parallel for
	for i := range x {
		x[i] = v + T(i)
	}
}

func main() {
	fl := make([]float64, 20)
	fill(fl, 0.5)
	rows := make([][]float64, 10)
	for i := range rows {
		rows[i] = make([]float64, 10)
	}
	//cape:parallel for
	for i := 0; i < 10; i++ {
		for j := 0; j < 10; j++ {
			rows[i][j] = float64(i - j)
		}
	}
	fmt.Println(fl[19], rows[9][0], rows[0][9])
}
