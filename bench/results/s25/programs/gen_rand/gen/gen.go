package gen

import "math/rand/v2"

// Fill fills s with random numbers.
func Fill(s []float64) {
	for i := range s {
		s[i] = rand.Float64()
	}
}
