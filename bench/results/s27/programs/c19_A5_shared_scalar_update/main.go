package main

import "fmt"

func main() {
	count := 0
	a := make([]int, 10)
	//cape:parallel for shared(count)
	for i := 0; i < 10; i++ {
		a[i] = i
		count++
	}
	fmt.Println(count, a)
}
