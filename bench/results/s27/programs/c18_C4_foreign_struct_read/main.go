package main

import (
	"fmt"

	"example.com/C4_foreign_struct_slice_read/part"
)

func main() {
	n := 10
	s := &part.System{Pos: make([]part.Vec3, n), M: make([]float64, n)}
	for i := 0; i < n; i++ {
		s.Pos[i] = part.Vec3{X: float64(i)}
		s.M[i] = 1
	}
	out := make([]float64, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		out[i] = s.Plain(i)
	}
	//cape:parallel for
	for i := 0; i < n; i++ {
		out[i] += s.Sum(i).X
	}
	fmt.Println(out)
}
