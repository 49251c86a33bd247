// Command ifacestruct calls an interface method implemented by a struct
// that holds a slice, as the user's report had it.
package main

import "fmt"

type setter interface{ set(i int, v float64) }

type holder struct{ out []float64 }

func (h holder) set(i int, v float64) { h.out[i] = v }

func main() {
	n := 30
	var s setter = holder{out: make([]float64, n)}
	//cape:parallel for
	for i := 0; i < n; i++ {
		s.set(i, float64(i*i))
	}
	sum := 0.0
	for _, v := range s.(holder).out {
		sum += v
	}
	fmt.Println(sum)
}
