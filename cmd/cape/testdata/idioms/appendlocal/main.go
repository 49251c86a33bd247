// Command appendlocal builds slices inside parallel loops the way Go
// programs do: append onto a slice declared in the iteration, a composite
// literal grown by append in a closure, a helper that returns an appended
// slice, and an append onto a zero-length slice of a shared array (which
// writes that array).
package main

import "fmt"

// divisors returns the divisors of i, built with append.
func divisors(i int) []int {
	var ds []int
	for d := 1; d <= i; d++ {
		if i%d == 0 {
			ds = append(ds, d)
		}
	}
	return ds
}

func main() {
	const n = 700
	sums := make([]int, n)
	marks := make([]int, n)
	//cape:parallel for schedule(dynamic, 9)
	for i := 0; i < n; i++ {
		ds := append(divisors(i), i*i)
		acc := []int{1}
		add := func(v int) { acc = append(acc, v%31) }
		for _, d := range ds {
			add(d)
		}
		s := 0
		for _, v := range acc {
			s += v
		}
		sums[i] = s
		tail := marks[i:i]
		tail = append(tail, s%97+len(tail))
	}
	//cape:parallel for schedule(static)
	for i := 0; i < n; i++ {
		var fs []int
		for k := i; k > 1; {
			for d := 2; d <= k; d++ {
				if k%d == 0 {
					fs = append(fs, d)
					k /= d
					break
				}
			}
		}
		sums[i] += len(fs)
	}
	t := 0
	for i := range sums {
		t += sums[i]*(i+1) + marks[i]
	}
	fmt.Println(t, marks[:10])
}
