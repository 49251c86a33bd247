package main

import "fmt"

func set0(b []int, v int) { b[0] = v }

func main() {
	data := []int{5, 5, 5, 5, 5, 5, 1, 0, 0, 0, 0, 0}
	buf := make([]int, 1)
	//cape:parallel for
	for i := 0; i < 12; i++ {
		set0(buf, data[i])
	}
	fmt.Println(buf)
}
