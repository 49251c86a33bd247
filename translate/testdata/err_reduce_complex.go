package main

import "fmt"

// Complex numbers reduce with + - * only.

func main() {
	var z complex128
	var w complex64
	//cape:parallel for reduction(+:z) reduction(max:w) // want "reduction\\(max:...\\) does not apply to complex numbers; w has type complex64"
	for i := 0; i < 8; i++ {
		z += complex(float64(i), 1)
		w = complex64(complex(float32(i), 0))
	}
	fmt.Println(z, w)
}
