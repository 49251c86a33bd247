package main

import "fmt"

var energy float64

type stepper interface{ account(u []float64) }
type acct struct{}

func (acct) account(u []float64) {
	for _, x := range u {
		energy += x
	}
}

var step = func(u []float64) { var s stepper = acct{}; s.account(u) }

func main() {
	n := 256
	u := make([]float64, n)
	next := make([]float64, n)
	for it := 0; it < 50; it++ {
		//cape:checkpoint it, u, next
		//cape:parallel for
		for i := 0; i < n; i++ {
			next[i] = u[i]*0.5 + float64(i%7)
		}
		u, next = next, u
		step(u)
	}
	fmt.Printf("%.6f %.6f\n", u[3], energy)
}
