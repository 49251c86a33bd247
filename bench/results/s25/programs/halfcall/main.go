// Command halfcall: two iterations write one element through an index a
// function computes; the later one writes back the value the element had
// before the loop (campaign 14's F2).
package main

import "fmt"

func half(i int) int { return i / 2 }

func main() {
	a := make([]int, 10)
	//cape:parallel for schedule(static, 1)
	for i := 0; i < 20; i++ {
		a[half(i)] = (i + 1) % 2 // even i writes 1, odd i (later) writes 0
	}
	fmt.Println(a)
}
