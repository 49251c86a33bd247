package main

import "fmt"

func main() {
	last := -1
	var arr [3]int
	//cape:parallel for lastprivate(last, arr)
	for i := 0; i < 100; i++ {
		if i > 55 {
			continue
		}
		switch {
		case i%7 == 3:
			last = i
		}
		arr = [3]int{i, i * 2, i * 3}
	}
	fmt.Println(last, arr)
}
