package main

import "fmt"

func main() {
	n := 10
	a := make([]float64, n)
	m := map[int]int{}
	//cape:parallel for
	for i := 0; i != n; i++ { // want "must use <, <=, > or >=, not !="
		a[i] = 1
	}
	//cape:parallel for
	for i := 0; i < n; i-- { // want "the loop.s post statement moves i down, away from a bound above it \\(i < n\\)"
		a[i] = 1
	}
	//cape:parallel for
	for i := 0; i < n; i += 0 { // want "step must be positive"
		a[i] = 1
	}
	//cape:parallel for
	for x := 0.0; x < 1; x += 0.1 { // want "loop variable x has type float64"
		a[0] = x
	}
	//cape:parallel for
	for i := 0; i < n; i++ {
		i += 2 // want "loop variable i is modified"
		a[i] = 1
	}
	//cape:parallel for
	for i := range a {
		if i%4 == 0 {
			i++ // want "the loop variable i is modified in the parallel loop: the translator takes it for the iteration's number .* assign a copy \\(i2 := i\\)"
		}
		a[i] = float64(i)
	}
	//cape:parallel for
	for i := 0; i < n; { // want "not canonical"
		a[i] = 1
		i++
	}
	//cape:parallel for
	for k := range m { // want "parallel for over m, of type map\\[int\\]int, is not supported"
		a[k] = 1
	}
	//cape:parallel for
	for i := 0; i*i < n; i++ { // want "must compare i with a bound"
		a[i] = 1
	}
	fmt.Println(a)
}
