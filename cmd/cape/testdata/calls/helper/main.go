// Command helper runs its parallel loop in a helper that calls a function
// value; the function literals it is given write shared slices.
package main

import "fmt"

// parallelFor calls body(i) for i in [0, n) on every node's share.
func parallelFor(n int, body func(i int)) {
	//cape:parallel for
	for i := 0; i < n; i++ {
		body(i)
	}
}

func square(dst []int64) func(int) {
	return func(i int) { dst[i] = int64(i) * int64(i) }
}

func main() {
	n := 40
	out := make([]float64, n)
	parallelFor(n, func(i int) { out[i] = float64(3*i + 1) })
	sq := make([]int64, n)
	parallelFor(n, square(sq))
	var sum float64
	var sqs int64
	for i := range out {
		sum += out[i]
		sqs += sq[i]
	}
	fmt.Println(sum, sqs, out[n-1], sq[n-1])
}
