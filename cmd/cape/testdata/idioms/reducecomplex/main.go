// Command reducecomplex reduces complex numbers: a sum and a product of
// complex128 scalars and a sum over a complex64 array, with exact terms
// (small integers and halves), so that every split gives the same bits.
package main

import "fmt"

func main() {
	const n = 4000
	var z complex128
	p := complex128(1)
	var hist [4]complex64
	//cape:parallel for schedule(dynamic, 33) reduction(+:z, hist) reduction(*:p)
	for i := 0; i < n; i++ {
		z += complex(float64(i%7), -float64(i%3)/2)
		if i%1000 == 0 {
			p *= complex(2, 0)
		}
		hist[i%4] += complex64(complex(1, float32(i%2)))
	}
	fmt.Println(z, p, hist)
}
