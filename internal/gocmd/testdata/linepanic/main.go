package main

import "fmt"

func main() {
	a := make([]int, 4)
	idx := []int{0, 1, 2, 9}
	//cape:parallel for
	for i := range 4 {
		a[idx[i]] = i // the panic must point here: line 10
	}
	fmt.Println(a)
}
