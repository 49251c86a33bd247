// Command diverge allocates more on node 1 than on the others before its
// region (its sequential code reads the node's rank, as one reading a file
// another node is rewriting would read other bytes): the master must stop
// the job naming the difference, not print a result.
package main

import (
	"fmt"
	"os"
)

// rank is the node's, read before main starts the runtime, which removes
// the launcher's variables from the environment.
var rank = os.Getenv("CAPE_RANK")

func main() {
	n := 4096
	if rank == "1" {
		n = 4 * 4096
	}
	a := make([]int, n)
	//cape:parallel for
	for i := range a {
		a[i] = i
	}
	fmt.Println(a[n-1])
}
