// Command loopends runs parallel loops whose end the translator cannot
// prove (a variable step, a <= bound, an unsigned count-down): cape run
// checks each before it runs it (cape.LoopCount). With the default flags
// every loop ends as go run's; -step -1 and -from 9 give loops that go run
// does not end at their bound (it panics), which cape run stops with an
// error naming the loop.
package main

import (
	"flag"
	"fmt"
)

func main() {
	step := flag.Int("step", 3, "the first loop's step")
	from := flag.Uint("from", 10, "the count-down's start (an odd start wraps around below 0)")
	flag.Parse()
	n := 40
	a := make([]int, n)
	//cape:parallel for
	for i := 1; i < n; i += *step {
		a[i] += i
	}
	//cape:parallel for
	for i := 2; i <= n-1; i++ {
		a[i] *= 2
	}
	b := make([]int, 12)
	//cape:parallel for
	for i := *from; i >= 1; i -= 2 {
		b[i] = int(i)
	}
	fmt.Println(a, b)
}
