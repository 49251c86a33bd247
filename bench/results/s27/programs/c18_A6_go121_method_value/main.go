package main

import "fmt"

type Counter struct{ N int }

func (c *Counter) Report() { fmt.Println("counter", c.N) }

func main() {
	cs := []Counter{{1}, {2}, {3}}
	var fs []func()
	for _, c := range cs {
		fs = append(fs, c.Report)
	}
	a := make([]int, 6)
	//cape:parallel for
	for i := 0; i < 6; i++ {
		a[i] = i * i
	}
	for _, f := range fs {
		f()
	}
	fmt.Println(a)
}
