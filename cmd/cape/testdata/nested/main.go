// Command nested calls a function with a parallel region of its own from a
// parallel loop, and nests a parallel loop in a section: the inner regions
// run whole on the node that reaches them (OpenMP with nested parallelism
// off). It needs the runtime's support for nested regions; once that is in,
// move it to testdata/idioms, where TestIdiomsMatchPlainGo runs it.
package main

import "fmt"

// norm is the sum of squares of row, with a region of its own.
func norm(row []float64) float64 {
	s := 0.0
	//cape:parallel for reduction(+:s)
	for j := 0; j < len(row); j++ {
		s += row[j] * row[j]
	}
	return s
}

func main() {
	const n, m = 40, 30
	a := make([]float64, n*m)
	norms := make([]float64, n)
	//cape:parallel for schedule(dynamic, 3)
	for i := 0; i < n; i++ {
		//cape:parallel for
		for j := 0; j < m; j++ {
			a[i*m+j] = float64((i*7+j*3)%11) / 4
		}
		norms[i] = norm(a[i*m : (i+1)*m])
	}
	head := make([]float64, m)
	//cape:parallel sections
	{
		//cape:section
		{
			//cape:parallel for
			for j := 0; j < m; j++ {
				head[j] = a[j] * 2
			}
		}
		//cape:section
		{
			norms[0] = norm(a)
		}
	}
	fmt.Println(norms, head, norm(head))
}
