// Command scatter updates shared arrays at places the translator cannot
// prove distinct per iteration, which are: each iteration's index is a
// permutation of the loop variable ((i*stride + off) mod a prime), and
// another array's through an index array holding a permutation. It
// prints what go run prints under any cape run.
package main

import "fmt"

func main() {
	const n = 4099
	a := make([]float64, n)
	cnt := make([]int32, n)
	perm := make([]int, n)
	for i := range a {
		a[i] = float64(i)
		perm[i] = (i*31 + 5) % n
	}
	for r := 0; r < 4; r++ {
		stride, off := 17+r*3, r*11
		//cape:parallel for
		for i := 0; i < n; i++ {
			j := (i*stride + off) % n
			a[j] = a[j]*0.5 + 1
			cnt[perm[i]] += int32(r + 1)
		}
	}
	s, c := 0.0, int32(0)
	for i := range a {
		s += a[i]
		c += cnt[i]
	}
	fmt.Println(s, c)
}
