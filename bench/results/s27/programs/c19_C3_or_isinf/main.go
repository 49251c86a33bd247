package main

import (
	"fmt"
	"math"
)

func main() {
	n := 500
	a := make([]float64, n)
	b := make([]float64, n)
	c := make([]float64, n)
	var sa, sb float64
	var nan bool
	//cape:parallel sections reduction(+:sa) reduction(||:nan)
	{
		//cape:section
		{
			for i := range n {
				a[i] = math.Sin(float64(i))
				sa += a[i] * 0
			}
		}
		//cape:section
		{
			for i := range n {
				b[i] = math.Sqrt(float64(i))
			}
			sb = b[n-1]
		}
		//cape:section
		{
			for i := range n {
				c[i] = math.Log(float64(i))
				nan = nan || math.IsInf(c[i], 0)
			}
		}
	}
	fmt.Printf("%.6f %.6f %.6f %v %v %.6f\n", a[7], b[99], c[10], sa, nan, sb)
}
