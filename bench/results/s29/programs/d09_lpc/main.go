package main

import "fmt"

func main() {
	x := -1
	data := make([]int, 90)
	for i := range data {
		data[i] = i
	}
	//cape:parallel for lastprivate(x)
	for i, v := range data {
		if v > 40 {
			continue
		}
		x = v + i
	}
	fmt.Println(x)
}
