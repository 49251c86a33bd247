package main

import "fmt"

type Integer interface{ ~int | ~int32 | ~int64 }

func odd[T Integer](n T, out []int) {
	//cape:parallel for
	for i := T(1); i < n; i += 2 {
		out[i] += int(i)
	}
}

type count int32

func main() {
	out := make([]int, 10)
	odd(count(9), out)
	odd(7, out)
	odd(int64(5), out)
	fmt.Println(out)
}
