package main

import "fmt"

type count int64

func main() {
	n := 10
	a := make([]int, 3*n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		a[i] = i
	}
	//cape:parallel for
	for i := 1; i <= n; i += 2 {
		a[i] += 1
	}
	//cape:parallel for
	for i := n - 1; i >= 0; i-- {
		a[i] *= 2
	}
	//cape:parallel for
	for i := 2 * n; i > n; i -= 3 {
		a[i] = -a[i]
	}
	//cape:parallel for
	for i := 0; n > i; i = i + 2 {
		a[i]++
	}
	step := 4
	//cape:parallel for
	for i := 0; i < len(a); i += step {
		a[i]--
	}
	//cape:parallel for
	for i := range n {
		a[n+i] = i
	}
	//cape:parallel for
	for i := range count(n) {
		a[2*n+int(i)] = int(i)
	}
	var j int
	//cape:parallel for
	for j = 0; j < n; j++ {
		a[j] += j
	}
	//cape:parallel for
	for i, v := range a {
		a[i] = v + 1
	}
	var arr [8]uint8
	//cape:parallel for
	for i := range arr {
		arr[i] = uint8(i)
	}
	//cape:parallel for
	for k := uint8(0); k < 8; k++ {
		arr[k] += k
	}
	//cape:parallel for
	for range 3 {
		a[0] = 7
	}
	fill(count(5), a)
	// A labelled loop, the directive where gofmt puts it: after the label.
outer:
	//cape:parallel for
	for i := 0; i < len(a); i++ {
		for k := 0; k < 4; k++ {
			if k*i > 6 {
				continue outer
			}
			a[i] += k
		}
	}
	fmt.Println(a, arr, j)
}

// Integer is a constraint of integer types only.
type Integer interface{ ~int | ~int32 | ~int64 }

// A loop variable of a type parameter whose types are integers.
func fill[T ~int64](n T, out []int) {
	//cape:parallel for
	for i := range n {
		out[i] = int(i) * 2
	}
	odd(n, out)
}

func odd[T Integer](n T, out []int) {
	//cape:parallel for
	for i := T(1); i < n; i += 2 {
		out[i] += int(i)
	}
}
