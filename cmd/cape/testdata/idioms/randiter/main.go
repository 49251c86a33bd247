// Command randiter makes a random generator of the standard library in
// each iteration, as Go programs do for Monte Carlo work: math/rand/v2's
// PCG and ChaCha8 and math/rand's Rand over a Source, each seeded from the
// iteration, so that every split of the iterations gives the same numbers.
package main

import (
	"fmt"
	mrand "math/rand"
	"math/rand/v2"
)

func main() {
	const n = 300
	inside := make([]int64, n)
	sums := make([]uint64, n)
	var hits int64
	//cape:parallel for schedule(dynamic, 7) reduction(+:hits)
	for i := 0; i < n; i++ {
		rng := rand.New(rand.NewPCG(uint64(i), 17))
		for k := 0; k < 200; k++ {
			x, y := rng.Float64(), rng.Float64()
			if x*x+y*y <= 1 {
				inside[i]++
				hits++
			}
		}
		var seed [32]byte
		seed[0], seed[1] = byte(i), byte(i>>8)
		cc := rand.NewChaCha8(seed)
		old := mrand.New(mrand.NewSource(int64(i)))
		sums[i] = cc.Uint64()%1000 + uint64(old.Intn(1000))
	}
	var total uint64
	for _, s := range sums {
		total += s
	}
	fmt.Println(hits, inside[:8], total)
}
