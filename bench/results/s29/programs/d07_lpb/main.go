package main

import "fmt"

func main() {
	last := -1
	//cape:parallel for lastprivate(last)
	for i := 0; i < 100; i++ {
		if i%7 == 3 && i < 60 {
			func() { last = i }()
		}
	}
	fmt.Println(last)
}
