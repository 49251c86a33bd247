package main

import (
	"flag"
	"fmt"
	"time"
)

func main() {
	n := flag.Int("n", 256, "size")
	steps := flag.Int("steps", 12, "steps")
	pause := flag.Duration("pause", 0, "pause")
	flag.Parse()
	u := make([]float64, *n)
	for i := range u {
		u[i] = float64(i % 7)
	}
	for it := 0; it < *steps; it++ {
		//cape:checkpoint it, u
		next := make([]float64, *n)
		//cape:parallel for
		for i := 1; i < *n-1; i++ {
			next[i] = (u[i-1] + u[i] + u[i+1]) / 3
		}
		next[0], next[*n-1] = u[0], u[*n-1]
		u = next
		time.Sleep(*pause)
		s := 0.0
		for _, v := range u {
			s += v
		}
		fmt.Printf("%d %.10g\n", it, s)
	}
}
