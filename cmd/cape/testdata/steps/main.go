// Command steps is a test program written against the runtime by hand: a
// time-stepping loop that allocates the next state in the arena every
// step, computes it in a parallel region from the current one, and frees
// the current one (cape.Free), so that it runs in the memory it holds live.
// With -rows the state is also reached through a [][]float64 of row headers
// kept in the arena; -heaprow stores a Go heap slice there instead, which
// the runtime must refuse. -plain runs the same computation in plain Go
// (the sequential baseline); -rss prints each node's peak resident memory;
// -nofree keeps every state (to compare).
package main

import (
	"flag"
	"fmt"
	"os"
	"syscall"

	"github.com/cape-go/cape/cape"
)

// sparse makes step s write only every third element, shifted by s, so that
// the others must read as the zero a fresh allocation holds: reused memory
// held other values there.
var sparse = flag.Bool("sparse", false, "write every third element only")

func step(next, u []float64, lo, hi, s int) {
	n := len(u)
	for i := lo; i < hi; i++ {
		if *sparse && (i+s)%3 != 0 {
			continue
		}
		l, r := u[(i+n-1)%n], u[(i+1)%n]
		next[i] = (l+u[i]+r)/3 + float64(i%7)
	}
}

func main() {
	n := flag.Int("n", 1<<20, "elements per state")
	steps := flag.Int("steps", 100, "time steps")
	rows := flag.Int("rows", 0, "keep row headers of the state in the arena, this many rows")
	heapRow := flag.Bool("heaprow", false, "store a Go heap slice among the row headers (must be refused)")
	heapRowIn := flag.Bool("heaprowin", false, "the last node stores a Go heap slice among the row headers inside a region (must be refused)")
	plain := flag.Bool("plain", false, "plain Go, no CAPE")
	rss := flag.Bool("rss", false, "print this process's peak RSS on stderr")
	noFree := flag.Bool("nofree", false, "do not free the old state (to compare)")
	flag.Parse()
	var sum float64
	if *plain {
		u := make([]float64, *n)
		for s := range *steps {
			next := make([]float64, *n)
			step(next, u, 0, *n, s)
			u = next
		}
		for _, v := range u {
			sum += v
		}
	} else {
		sum = withCape(*n, *steps, *rows, *heapRow, *heapRowIn, !*noFree)
	}
	fmt.Printf("sum %.6f\n", sum)
	if *rss {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		fmt.Fprintf(os.Stderr, "peak RSS %d KiB\n", ru.Maxrss)
	}
}

func withCape(n, steps, rows int, heapRow, heapRowIn, free bool) float64 {
	cape.Must(cape.Init())
	defer cape.Finalize()
	u := cape.Make[float64](n)
	var hdr [][]float64
	if rows > 0 {
		hdr = cape.Make[[]float64](rows)
	}
	for s := range steps {
		next := cape.Make[float64](n)
		for i := range hdr {
			hdr[i] = next[i*n/rows : (i+1)*n/rows]
		}
		if heapRow && s == steps/2 {
			hdr[rows-1] = make([]float64, 1)
		}
		r := cape.Begin(fmt.Sprintf("step %d", s))
		cape.Must(r.Start())
		lo, hi := r.Static(n)
		step(next, u, lo, hi, s)
		if heapRowIn && s == steps/2 && hi == n {
			hdr[rows-1] = make([]float64, 1)
		}
		d, err := r.Create()
		cape.Must(err)
		cape.Must(r.Stop())
		cape.Must(r.Exchange(d))
		if free {
			cape.Must(cape.Free(u))
		}
		u = next
	}
	var sum float64
	for _, row := range hdr {
		for _, v := range row {
			sum += v
		}
	}
	if rows == 0 {
		for _, v := range u {
			sum += v
		}
	}
	return sum
}
