package main

import "fmt"

func main() {
	n := 16
	a := make([]float64, n)
	b := make([]int64, n)
	var sum, prod float64 = 0, 1
	var total, diff int64
	var and, or, xor uint32 = ^uint32(0), 0, 0
	all, any := true, false
	lo, hi := 1e300, -1e300
	smallest := int64(1 << 62)
	tmp := 0.0
	scale := 2.0
	last := -1
	//cape:parallel for reduction(+:sum) reduction(*:prod) reduction(-:diff) private(tmp) firstprivate(scale) lastprivate(last)
	for i := 0; i < n; i++ {
		tmp = float64(i) * scale
		a[i] = tmp
		sum += tmp
		prod *= 1.5
		diff -= int64(i)
		last = i
	}
	//cape:parallel for reduction(+:total), reduction(&:and) reduction(|:or) reduction(^:xor)
	for i := range n {
		b[i] = int64(i * i)
		total += b[i]
		and &= uint32(i) | 0xF0
		or |= uint32(i)
		xor ^= uint32(i)
	}
	//cape:parallel for reduction(&&:all) reduction(||:any) reduction(min:lo, smallest) reduction(max:hi)
	for i := range n {
		all = all && a[i] >= 0
		any = any || b[i] > 100
		lo = min(lo, a[i])
		hi = max(hi, a[i])
		smallest = min(smallest, b[i])
	}
	found := false
	//cape:parallel for shared(found) schedule(dynamic) lastprivate(last)
	for i := range n {
		if b[i] == 49 {
			found = true
		}
		last = i * 2
	}
	fmt.Println(sum, prod, total, diff, and, or, xor, all, any, lo, hi, smallest, last, found)
}
