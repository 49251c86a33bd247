package main

import "fmt"

func main() {
	const n = 100
	out := make([]int, n)
	t := -1
	//cape:parallel for lastprivate(t) schedule(dynamic, 7)
	for i := 0; i < n; i++ {
		switch {
		case i%3 == 0:
			t = i * i
		case i%3 == 1:
			if i > 50 {
				t = -i
				break
			}
			t = i
		default:
			t = 3 * i
		}
		out[i] = t
	}
	fmt.Println(out, t)
}
