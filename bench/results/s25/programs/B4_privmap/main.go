package main

import "fmt"

func distinct(xs []int) int {
	seen := make(map[int]bool)
	for _, x := range xs {
		seen[x] = true
	}
	return len(seen)
}

func main() {
	data := make([]int, 100)
	for i := range data {
		data[i] = i * i % 17
	}
	out := make([]int, 10)
	//cape:parallel for
	for i := 0; i < 10; i++ {
		out[i] = distinct(data[i*10 : (i+1)*10])
	}
	fmt.Println(out)
}
