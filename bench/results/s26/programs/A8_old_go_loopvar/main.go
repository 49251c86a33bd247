package main

import "fmt"

func main() {
	var fs []func() int
	for i := 0; i < 3; i++ {
		fs = append(fs, func() int { return i })
	}
	a := make([]int, 6)
	//cape:parallel for
	for i := 0; i < 6; i++ {
		a[i] = i * i
	}
	for _, f := range fs {
		fmt.Print(f(), " ")
	}
	fmt.Println(a)
}
