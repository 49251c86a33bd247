package main

import "fmt"

type lcg struct{ s uint64 }

func main() {
	g := &lcg{s: 7}
	a := make([]uint64, 10)
	//cape:parallel for
	for i := 0; i < 10; i++ {
		v := g.s*6364136223846793005 + 1442695040888963407
		g.s = v
		a[i] = (v >> 33) % 1000
	}
	fmt.Println(a)
}
