// Command clockbetween is not deterministic outside its regions: between
// its two regions it stores the clock in shared memory. A restart from its
// checkpoint log must be refused, naming the second region.
package main

import (
	"fmt"
	"time"
)

func main() {
	n := 1000
	x := make([]int64, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		x[i] = int64(i)
	}
	x[0] = time.Now().UnixNano() // differs in every run
	//cape:parallel for
	for i := 0; i < n; i++ {
		x[i] *= 2
	}
	fmt.Println(x[n-1])
}
