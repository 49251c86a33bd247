package main

import "fmt"

func norm(a, b int) int { return a*a + b*b }

// t assigned in the if's init statement, read in its condition and body.
// A correct program.
func main() {
	n := 30
	out := make([]int, n)
	var t int
	//cape:parallel for private(t)
	for i := 0; i < n; i++ {
		if t = norm(i%7, i%5); t > 20 {
			out[i] = t
		}
	}
	fmt.Println(out)
}
