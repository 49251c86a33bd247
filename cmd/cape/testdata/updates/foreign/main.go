// Command foreign updates shared elements through another package's code
// at places several iterations share (i%3): through a pointer it hands
// over, a pointer method's fields, a named slice type's method. Without a
// reduction this races; under cape run the merge must stop the job (each
// node's share of the counts was kept with exit status 0). With -own each
// iteration updates its own element: go run's answer.
package main

import (
	"flag"
	"fmt"

	"github.com/cape-go/cape/cmd/cape/testdata/updates/foreign/lib"
)

func main() {
	how := flag.String("how", "ptr", "ptr, method or counts")
	own := flag.Bool("own", false, "each iteration updates its own element")
	flag.Parse()
	n := 12
	at := func(i int) int {
		if *own {
			return i
		}
		return i % 3
	}
	out := make([]int, n)
	accs := make([]lib.Acc, n)
	h := make(lib.Counts, n)
	switch *how {
	case "ptr":
		//cape:parallel for
		for i := 0; i < n; i++ {
			lib.Add(&out[at(i)], 1)
		}
	case "method":
		//cape:parallel for
		for i := 0; i < n; i++ {
			accs[at(i)].Add(1)
		}
	case "counts":
		//cape:parallel for
		for i := 0; i < n; i++ {
			h.Inc(at(i))
		}
	}
	fmt.Println(out, accs, h)
}
