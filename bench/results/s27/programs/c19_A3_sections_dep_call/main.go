package main

import "fmt"

func heat(t []float64)        { t[0] = 300 }
func pressure(p, t []float64) { p[0] = t[0] * 0.5 }

func main() {
	T := make([]float64, 2)
	P := make([]float64, 2)
	//cape:parallel sections
	{
		//cape:section
		{
			heat(T)
		}
		//cape:section
		{
			pressure(P, T)
		}
	}
	fmt.Println(T, P)
}
