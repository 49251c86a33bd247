package main

import "fmt"

func main() {
	x := -1
	//cape:parallel for lastprivate(x)
	for i := 0; i < 90; i++ {
		if i > 55 {
			continue
		}
		x = i
	}
	fmt.Println(x)
}
