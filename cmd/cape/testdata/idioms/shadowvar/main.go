// Command shadowvar declares its parallel loops' variables again at the top
// of their bodies, the capture idiom of Go before 1.22 (i := i, v := v,
// var k = k): legal Go, which the translation must keep compiling.
package main

import "fmt"

func main() {
	a := make([]int, 40)
	//cape:parallel for
	for i := 0; i < len(a); i++ {
		i := i
		a[i] = i * i
	}
	b := make([]int, len(a))
	//cape:parallel for
	for j, v := range a {
		v := v
		b[j] = v + 1
	}
	c := make([]int, len(a))
	//cape:parallel for
	for k := range len(c) {
		var k = k + 0
		c[k] = 2 * k
	}
	fmt.Println(a[39], b[39], c[39], a[7]+b[7]+c[7])
}
