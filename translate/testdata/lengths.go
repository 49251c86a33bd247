package main

import (
	"flag"
	"fmt"
)

const limit uint64 = 100

type count uint16

var size = flag.Int64("size", 8, "elements")

func main() {
	flag.Parse()
	var n64 int64 = 10
	var n32 uint32 = 12
	var nc count = 5
	m := int64(4)
	sieve := make([]int32, limit+1)
	a := make([]float64, n64)
	b := make([]byte, n32)
	c := make([]int16, *size)
	d := make([]uint8, nc)
	e := make([]int, m, 2*m)
	f := make([]int, 3, n32)
	g := make([]float32, 1<<4)
	//cape:parallel for
	for i := 0; i < 4; i++ {
		sieve[i] = 1
		a[i] = 2
		b[i] = 3
		c[i] = 4
		d[i] = 5
		e[i] = 6
		f[i] = 7
		g[i] = 8
	}
	fmt.Println(len(sieve), a[0], b[1], c[2], d[3], e, cap(e), f, cap(f), g[0])
}
