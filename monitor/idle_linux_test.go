//go:build linux

package monitor

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// idleCase is a mixed or faults tracker over 256 pages whose regions'
// writes are bounded to the first idleWork pages and whose stretches
// between regions are never proven clean (a program that allocates between
// regions): the rest, written once and then left alone, is memory the
// program no longer touches (a buffer it dropped or leaked).
const idleWork = 64

// hintedRegion runs a region with hint h that writes a byte of each page
// of pages, then between. Its Start must leave exact twins for every page
// the region may write (a hot chunk outside the bounds may keep stale ones
// until it is compared), and its Stop must report exactly the pages that
// changed.
func (c *mixedCase) hintedRegion(h Hint, between func(), pages ...int) []int {
	c.t.Helper()
	c.u.SetHint(h)
	c.snap = append(c.snap[:0], c.mem...)
	if err := c.u.Start(len(c.mem)); err != nil {
		c.t.Fatal(err)
	}
	c.i++
	for _, w := range h.Writes {
		for p := w.Off / c.ps; p*c.ps < w.Off+w.Len; p++ {
			if !bytes.Equal(c.u.Twin(p), c.snap[p*c.ps:(p+1)*c.ps]) {
				c.t.Fatalf("region %d: twin of page %d (chunk %v), which it may write, is not its content at Start", c.i, p, c.u.chunks[p/chunkPages])
			}
		}
	}
	for _, p := range pages {
		c.mem[p*c.ps+c.i%c.ps]++
	}
	got := c.stop()
	if between != nil {
		between()
	}
	return got
}

// Memory a program stopped writing turns cold even though no stretch is
// proven clean and no region's writes meet it: its chunks are compared at
// a Start once they are due to cool, then probed and armed. It then costs
// nothing: Between reports none of its pages as possibly changed (the lazy
// master's snapshot skips them), and Stops find exactly the pages written.
func TestUffdIdleChunksCoolUnproven(t *testing.T) {
	c := newMixedCase(t)
	np := len(c.mem) / c.ps
	c.u.WatchBetween()
	work := Hint{Bounded: true, Writes: []Span{{Off: 0, Len: idleWork * c.ps}}}
	rest := Hint{Bounded: true, Writes: []Span{{Off: idleWork * c.ps, Len: (np - idleWork) * c.ps}}}
	all := make([]int, 0, np-idleWork)
	for p := idleWork; p < np; p++ {
		all = append(all, p)
	}
	c.hintedRegion(rest, nil, all...) // the buffer is filled once
	rng := rand.New(rand.NewPCG(1, 2))
	for k := range 60 {
		seq := func() { c.mem[rng.IntN(idleWork)*c.ps+k%c.ps]++ } // sequential code, unproven
		c.hintedRegion(work, seq, rng.IntN(idleWork), rng.IntN(idleWork))
	}
	for ch := idleWork / chunkPages; ch < np/chunkPages; ch++ {
		if st := c.state(ch); st != chunkCold {
			t.Errorf("chunk %d, written once 60 regions ago: %v, want cold", ch, st)
		}
	}
	c.hintedRegion(work, nil, 1)
	b := c.u.Between()
	if b.Known() < np {
		t.Fatalf("Between knows %d pages, want all %d", b.Known(), np)
	}
	for _, p := range b.Written() {
		if p >= idleWork {
			t.Errorf("Between: page %d of the idle memory may have changed", p)
		}
	}
	// Written again, between regions and in one: found, twins exact.
	c.mem[200*c.ps]++
	c.hintedRegion(rest, nil, 150)
	c.hintedRegion(work, nil, 2)
}

// A Stop whose region's writes are bounded scans only the bounds; writes
// outside them between regions are never reported by a Stop, and their
// twins are exact at the next Start that may write them (hintedRegion),
// for the faults and the mixed kinds alike.
func TestUffdBoundedStop(t *testing.T) {
	for _, mode := range []uffdMode{uffdModeFaults, uffdModePlain} {
		c := newMixedCase(t)
		c.u.mode = mode
		np := len(c.mem) / c.ps
		rng := rand.New(rand.NewPCG(3, uint64(mode)))
		for k := range 80 {
			lo := rng.IntN(np - 8)
			hi := lo + 1 + rng.IntN(min(40, np-lo-1))
			h := Hint{Bounded: true, Writes: []Span{{Off: lo*c.ps + 5, Len: (hi-lo-1)*c.ps + 1}}}
			if k%7 == 0 {
				h.Writes = append(h.Writes, Span{Off: hi * c.ps, Len: 0}) // empty spans add nothing
			}
			pages := []int{lo, hi - 1, lo + rng.IntN(hi-lo)}
			seq := func() {
				for range 3 {
					c.mem[rng.IntN(np)*c.ps+rng.IntN(c.ps)]++
				}
			}
			c.hintedRegion(h, seq, pages...)
		}
		// A region bounded to nothing scans nothing and finds nothing.
		if got := c.hintedRegion(Hint{Bounded: true}, nil); len(got) != 0 {
			t.Errorf("mode %v: a region bounded to no memory reported pages %v", mode, got)
		}
	}
}

// A mixed Start whose region's writes are bounded, on a tracker nobody
// watches, leaves the chunks cold for freezeAfter Starts outside the
// bounds out of its walk: a page written there between regions stays
// unprotected until a Start whose region may write it, or any Start that
// walks the whole extent, finds it. Every Stop still reports exactly the
// pages its region changed, and the twins a region may diff are exact.
func TestUffdDeferredWalk(t *testing.T) {
	for _, then := range []string{"bounded", "unbounded", "faults"} {
		c := newMixedCase(t)
		np := len(c.mem) / c.ps
		work := Hint{Bounded: true, Writes: []Span{{Off: 0, Len: idleWork * c.ps}}}
		rest := Hint{Bounded: true, Writes: []Span{{Off: idleWork * c.ps, Len: (np - idleWork) * c.ps}}}
		all := make([]int, 0, np-idleWork)
		for p := idleWork; p < np; p++ {
			all = append(all, p)
		}
		c.hintedRegion(rest, nil, all...)
		for k := range 2 * freezeAfter {
			c.hintedRegion(work, nil, k%idleWork)
		}
		const p = 200 // in a frozen chunk
		if !c.u.frozen(&c.u.chunks[p/chunkPages]) {
			t.Fatalf("chunk %d: %+v after %d idle Starts, want frozen", p/chunkPages, c.u.chunks[p/chunkPages], 2*freezeAfter)
		}
		c.mem[p*c.ps+1]++ // sequential code
		for k := range 3 {
			c.hintedRegion(work, nil, k)
			if !c.u.deferred || c.protected(p) {
				t.Fatalf("%s: a deferring Start walked page %d (deferred %v)", then, p, c.u.deferred)
			}
		}
		switch then {
		case "bounded": // a region that may write the page: its twin is exact
			c.hintedRegion(Hint{Bounded: true, Writes: []Span{{Off: (p - 3) * c.ps, Len: 8 * c.ps}}}, nil, p+1)
			c.hintedRegion(Hint{Bounded: true, Writes: []Span{{Off: (p - 3) * c.ps, Len: 8 * c.ps}}}, nil, p)
		case "unbounded": // every twin exact, the write between regions not reported
			c.region(3, p+2)
		case "faults":
			c.u.mode = uffdModeFaults
			c.region(4, p+2)
		}
		if !c.protected(p) && then == "faults" {
			t.Errorf("%s: page %d still unprotected after a faults region", then, p)
		}
	}
}
