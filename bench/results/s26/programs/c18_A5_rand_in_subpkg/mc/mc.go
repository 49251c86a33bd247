package mc

import "math/rand"

func Sample() float64 { return rand.Float64()*2 - 1 }
