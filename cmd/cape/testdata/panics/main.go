// Command panics panics in an iteration of a parallel loop: on every node
// (-all: the program's own failure, which must end the job as go run ends,
// with its message and status 2) or on slave 1 only (a node's failure,
// whose message must still be shown).
package main

import (
	"flag"
	"fmt"
	"os"
)

// rank is the node's, read before main starts the runtime, which removes
// the launcher's variables from the environment.
var rank = os.Getenv("CAPE_RANK")

func main() {
	all := flag.Bool("all", false, "panic on every node, not only on node 1")
	flag.Parse()
	here := *all || rank == "1"
	a := make([]int, 100)
	//cape:parallel for
	for i := range a {
		if i == 77 && here {
			panic(fmt.Sprint("boom at ", i))
		}
		a[i] = i
	}
	fmt.Println("after", a[77])
}
