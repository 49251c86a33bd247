// Command lazy moves data across nodes every region, for the lazy-transfer
// tests: two regions per step each read one element past the block a node
// writes (a halo a slave fetches once, then gets pushed), and sequential
// code between them updates elements of pages a slave lacks (it fetches
// them as of the last region, then applies the same update).
package main

import "fmt"

func main() {
	const n = 8192 // 64 KiB per array: 16 pages
	a := make([]int64, n)
	b := make([]int64, n)
	for i := range n {
		a[i] = int64(i % 7)
	}
	for it := 0; it < 8; it++ {
		//cape:parallel for schedule(static)
		for i := 1; i < n-1; i++ {
			b[i] = (a[i-1] + a[i+1] + int64(it)) % 1000003
		}
		b[5] += int64(it)
		b[n-5]++
		//cape:parallel for schedule(static)
		for i := 1; i < n-1; i++ {
			a[i] = (b[i] + b[i-1]) % 1000003
		}
	}
	var sum int64
	for i := range n {
		sum += a[i]*int64(i%13) + b[i]
	}
	fmt.Println(sum, a[1], a[n/2], b[n-2])
}
