package main

import "fmt"

// shared(x) says every iteration stores the same value; these do not, and
// the two values differ in bytes one node's value leaves as they were.
func main() {
	x := 0
	a := make([]int, 10)
	//cape:parallel for shared(x)
	for i := 0; i < 10; i++ {
		a[i] = i
		if i < 5 {
			x = 0x0101
		} else {
			x = 0x0100
		}
	}
	fmt.Println(x, a)
}
