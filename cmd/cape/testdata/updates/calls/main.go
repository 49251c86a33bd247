// Command calls writes one place in every iteration through a call: the
// index computed by a function (a[half(i)]), a function of the package
// writing b[0] (set0) or b[idx[k]] (scatter), a method writing fields,
// and a method of another package (st.S.Note). The sequentially last
// write stores the value the place had before the loop, which the merge,
// comparing bytes with the region's entry, cannot see: under cape run the
// job stops with an error naming both nodes. With -last, only the last
// iteration makes the calls: it prints what go run prints.
package main

import (
	"flag"
	"fmt"

	"github.com/cape-go/cape/cmd/cape/testdata/updates/calls/st"
)

func half(i int) int { return i / 2 }

func set0(b []int, v int) { b[0] = v }

func scatter(b, idx []int, k, v int) { b[idx[k]] = v }

type note struct{ last int }

func (n *note) put(v int) { n.last = v }

func main() {
	how := flag.String("how", "index", "index, fn, scatter, method or other")
	last := flag.Bool("last", false, "only the last iteration writes")
	flag.Parse()
	n := 24
	vals := make([]int, n)
	for i := range vals {
		vals[i] = 5
	}
	vals[n-1] = 0 // the last write restores the entry value
	a := make([]int, n)
	buf := make([]int, 1)
	nt := &note{}
	s := &st.S{Buf: make([]int, 1)}
	switch *how {
	case "index":
		//cape:parallel for schedule(static, 1)
		for i := 0; i < 2*n; i++ {
			a[half(i)] = (i + 1) % 2
		}
	case "fn":
		//cape:parallel for
		for i := 0; i < n; i++ {
			if !*last || i == n-1 {
				set0(buf, vals[i]+1)
				set0(a, vals[i])
			}
		}
	case "scatter": // through an index read from memory: all 0
		idx := make([]int, n)
		//cape:parallel for
		for i := 0; i < n; i++ {
			if !*last || i == n-1 {
				scatter(a, idx, i, vals[i])
			}
		}
	case "method":
		//cape:parallel for
		for i := 0; i < n; i++ {
			nt.put(vals[i])
		}
	case "other":
		//cape:parallel for
		for i := 0; i < n; i++ {
			if !*last || i == n-1 {
				s.Note(vals[i] + 1)
			}
		}
	}
	fmt.Println(a[:4], buf, nt.last, s.Last, s.Buf, s.Seen())
}
