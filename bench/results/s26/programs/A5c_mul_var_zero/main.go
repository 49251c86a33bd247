package main

import "fmt"

func main() {
	c := make([]int, 10)
	z := 0 // a stride read from input or a parameter that happens to be 0
	//cape:parallel for
	for i := 0; i < 4; i++ {
		c[i*z] = 3 - i
	}
	fmt.Println(c[:3])
}
