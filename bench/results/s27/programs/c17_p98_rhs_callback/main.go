package main

import "fmt"

type RHS func(t float64, y, dy []float64)

func rk2(f RHS, t, h float64, y, k1, tmp []float64) {
	f(t, y, k1)
	for i := range y {
		tmp[i] = y[i] + 0.5*h*k1[i]
	}
	f(t+0.5*h, tmp, k1)
	for i := range y {
		y[i] += h * k1[i]
	}
}

func main() {
	n := 64
	y := make([]float64, n)
	k1 := make([]float64, n)
	tmp := make([]float64, n)
	for i := range y {
		y[i] = float64(i % 8)
	}
	decay := func(t float64, y, dy []float64) {
		//cape:parallel for
		for i := 0; i < len(y); i++ {
			dy[i] = -0.5*y[i] + 0.1*float64(i%3)
		}
	}
	t := 0.0
	for s := 0; s < 20; s++ {
		rk2(decay, t, 0.05, y, k1, tmp)
		t += 0.05
	}
	fmt.Printf("%.12f %.12f\n", y[7], y[63])
}
