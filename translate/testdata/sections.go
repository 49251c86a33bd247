package main

import "fmt"

type stats struct {
	min, max float64
	n        int
}

func work(x []float64) {
	for i := range x {
		x[i] = float64(i)
	}
}

func main() {
	a := make([]float64, 64)
	b := make([]float64, 64)
	var st stats
	var count int
	who := 0
	sum := 0.0
	//cape:parallel sections lastprivate(who) reduction(+:sum)
	{
		//cape:section
		{
			work(a)
			who = 1
			sum += 1
		}
		//cape:section
		{
			for i := range b {
				b[i] = 2 * float64(i)
			}
			who = 2
			sum += 2
		}
		//cape:section
		{
			st.min, st.max = 0, 63
			st.n = 64
		}
		//cape:section
		{
			count = len(a)
		}
	}
	fmt.Println(who) // the first region's lastprivate
	//cape:parallel sections schedule(dynamic) private(who)
	{
		//cape:section
		{
			who = 3
			a[0] = float64(who)
		}
	}
	fmt.Println(a[1], b[1], st, count, sum)
	grouped()
}

// Variables declared together, some written by sections: the statement is
// split, one declaration each, in order.
func grouped() {
	var r1, r2 int
	var (
		lo, hi = 1, 3
		total  float64
	)
	count, step := 0, 2
	//cape:parallel sections
	{
		//cape:section
		{
			r1 = lo + hi
			total = 2.5
		}
		//cape:section
		{
			r2 = hi - lo
			count = step
		}
	}
	fmt.Println(r1, r2, total, count)
}
