package main

import "fmt"

func main() {
	out := make([]int, 8)
	t := -1
	//cape:parallel for lastprivate(t)
	for i := 0; i < 8; i++ {
		if i%2 == 1 {
			t = i
		}
		out[i] = t
	}
	fmt.Println(out, t)
}
