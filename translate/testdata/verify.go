package main

import "fmt"

// The --verify re-runs repeat each region's code: labels are renamed (they
// are unique in a function), private copies and reductions are shadowed.

func rows(a []int, n int) {
	//cape:parallel for schedule(dynamic, 2)
outer:
	for i := 0; i < n; i++ {
	inner:
		for j := 0; j < n; j++ {
			if j > i {
				continue outer
			}
			if a[i*n+j] < 0 {
				break inner
			}
			a[i*n+j] = i + j
		}
	}
}

func main() {
	n := 8
	a := make([]int, n*n)
	rows(a, n)
	var best [2]int
	//cape:parallel for
	for i := range 2 {
		best[i] = i
	}
	var j int
	bias := [3]int{1, 2, 3}
	total := 10
	//cape:parallel for firstprivate(bias) lastprivate(best) reduction(+:total)
	for j = 0; j < n; j++ {
		best = [2]int{}
		best[j%2] = a[j] + bias[j%3]
		total += best[j%2]
	}
	var tmp int
	//cape:parallel sections private(tmp)
	{
		//cape:section
		{
		loop:
			for k := range n {
				tmp = a[k]
				if tmp > 3 {
					break loop
				}
				a[k] = -tmp
			}
		}
		//cape:section
		{
			func() {
			loop:
				for {
					break loop
				}
			}()
			a[n] = 1
		}
	}
	func() {
		//cape:parallel for
	again:
		for i := range n {
			if i%2 == 1 {
				continue again
			}
			a[i]++
		}
	}()
	fmt.Println(a[:n+1], best, j, total)
}
