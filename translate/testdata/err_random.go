package main

import (
	crand "crypto/rand"
	"fmt"
	"hash/maphash"
	"math/rand/v2"
)

// Random numbers of each process's own, drawn in sequential code, differ
// from node to node; in a region's iterations, and from a seeded
// generator, they are the program's to choose.

func sample() float64 { return rand.Float64() } // called from the region only

func main() {
	n := 64
	a := make([]float64, n)
	for i := range a {
		a[i] = rand.Float64() // want "rand.Float64 draws numbers of this process's own, outside the parallel regions"
	}
	perm := rand.Perm(n) // want "rand.Perm draws numbers of this process's own"
	key := make([]byte, 8)
	crand.Read(key)            // want "rand.Read draws numbers of this process's own"
	seed := maphash.MakeSeed() // want "maphash.MakeSeed draws numbers of this process's own.*hash/fnv"
	g := rand.New(rand.NewPCG(1, 2))
	b := make([]float64, n)
	for i := range b {
		b[i] = g.Float64()
	}
	//cape:parallel for
	for i := 0; i < n; i++ {
		a[i] += b[perm[i]] * rand.Float64() * sample()
	}
	fmt.Println(a[0], key[0], maphash.String(seed, "x"))
}
