package main

import "fmt"

type In struct{ X, Y int }
type P struct{ In In }

func main() {
	out := make([]int, 8)
	t := P{In{-1, -1}}
	//cape:parallel for private(t)
	for i := 0; i < 8; i++ {
		t.In.X = i
		out[i] = t.In.Y
	}
	fmt.Println(out)
}
