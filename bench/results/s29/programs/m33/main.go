package main

import "fmt"

func main() {
	data := make([]int, 20)
	view := data[5:15]
	//cape:parallel for firstprivate(view)
	for i := 0; i < len(view); i++ {
		view[i] = i * 3
	}
	fmt.Println(data)
}
