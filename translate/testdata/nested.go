package main

import "fmt"

// rowSum has a region of its own, which runs nested when rowSum is called
// from a region.
func rowSum(row []float64) float64 {
	s := 0.0
	//cape:parallel for reduction(+:s)
	for j := 0; j < len(row); j++ {
		s += row[j]
	}
	return s
}

func main() {
	n, m := 4, 5
	a := make([]float64, n*m)
	sums := make([]float64, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		//cape:parallel for schedule(dynamic)
		for j := 0; j < m; j++ {
			a[i*m+j] = float64(i * j)
		}
		sums[i] = rowSum(a[i*m : (i+1)*m])
	}
	//cape:parallel sections
	{
		//cape:section
		{
			//cape:parallel for
			for j := 0; j < m; j++ {
				a[j] = 1
			}
		}
		//cape:section
		{
			sums[0] = 2
		}
	}
	fmt.Println(sums, a, rowSum(a))
}
