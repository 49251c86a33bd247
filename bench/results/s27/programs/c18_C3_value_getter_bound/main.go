package main

import (
	"fmt"

	"example.com/C3_value_getter_bound/vv"
)

func main() {
	n := 8
	b := &vv.V{Data: make([]float64, n)}
	for i := range b.Data {
		b.Data[i] = float64(i)
	}
	out := make([]float64, n)
	//cape:parallel for
	for i := 0; i < b.Len(); i++ {
		out[i] = 2 * b.Get(i)
	}
	fmt.Println(out)
}
