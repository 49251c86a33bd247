package main

import (
	"fmt"
	"hash/fnv"
	"os"
)

func main() {
	data, err := os.ReadFile("main.go")
	if err != nil {
		panic(err)
	}
	chunk := 64
	nc := (len(data) + chunk - 1) / chunk
	sums := make([]uint64, nc)
	var x uint64
	var tot uint32
	//cape:parallel for reduction(^:x) reduction(+:tot)
	for c := 0; c < nc; c++ {
		h := fnv.New64a()
		h.Write(data[c*chunk : min((c+1)*chunk, len(data))])
		sums[c] = h.Sum64()
		x ^= sums[c]
		tot += uint32(sums[c] >> 40)
	}
	fmt.Printf("%d %x %d %x\n", nc, x, tot, sums[0])
}
