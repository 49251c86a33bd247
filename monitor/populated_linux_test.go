//go:build linux

package monitor

import (
	"bytes"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cape-go/cape/internal/uffd"
)

// untouched drives a mixed uffd tracker over memory that the test never
// reads, so that the pages it does not write stay unpopulated: a model
// holds what the memory should contain, and Stops and twins are checked
// against it.
type untouched struct {
	*mixedCase
	model, atStart []byte
	sink           byte
}

// newUntouched returns a case whose model is already in memory: fresh Go
// heap memory may come untouched from the kernel, and its first-touch
// faults would be counted with the tracked memory's.
func newUntouched(t *testing.T) *untouched {
	c := &untouched{mixedCase: newMixedCase(t)}
	c.model = make([]byte, len(c.mem))
	for i := 0; i < len(c.model); i += c.ps {
		c.model[i] = 0
	}
	return c
}

// write changes byte i (every write changes its byte, so that Stop's
// exact answer is known).
func (c *untouched) write(i int) {
	c.model[i]++
	c.mem[i] = c.model[i]
}

// touch reads page p, which maps it if it was not.
func (c *untouched) touch(p int) { c.sink ^= c.mem[p*c.ps+7] }

func (c *untouched) start(h Hint, extent int) {
	c.t.Helper()
	c.u.SetHint(h)
	if err := c.u.Start(extent); err != nil {
		c.t.Fatal(err)
	}
	c.i++
	c.atStart = append(c.atStart[:0], c.model...)
	for p := range extent / c.ps {
		if h.Bounded && !meets(h.Writes, p*c.ps, (p+1)*c.ps) {
			continue
		}
		if !bytes.Equal(c.u.Twin(p), c.model[p*c.ps:(p+1)*c.ps]) {
			c.t.Fatalf("region %d: twin of page %d (chunk %+v) is not its content at Start", c.i, p, c.u.chunks[p/chunkPages])
		}
	}
}

func (c *untouched) stop() []int { c.t.Helper(); return c.stopAgainst(c.model, c.atStart) }

// TestUffdUntouched: memory the program never touched is neither read nor
// compared, and the chunks of it a grown extent adds start cold; the
// first writes there, in regions, between them (announced or not) and
// after mere reads, are all found, and twins stay exact.
func TestUffdUntouched(t *testing.T) {
	bornCold := 0
	for seed := range uint64(12) {
		c := newUntouched(t)
		ps := c.ps
		np := len(c.mem) / ps
		rng := rand.New(rand.NewPCG(seed, 29))
		extent := (8 + rng.IntN(40)) * ps
		for k := range 60 {
			clean := k > 0
			if rng.IntN(4) == 0 {
				for range 1 + rng.IntN(3) {
					c.write(rng.IntN(extent))
				}
				clean = false
			}
			if rng.IntN(4) == 0 {
				c.touch(rng.IntN(np))
			}
			if rng.IntN(5) == 0 {
				p := rng.IntN(extent / ps)
				if err := c.u.WillWrite(p*ps, ps); err != nil {
					t.Fatal(err)
				}
				c.write(p*ps + rng.IntN(ps))
			}
			if rng.IntN(6) == 0 {
				extent = min(np, extent/ps+rng.IntN(80)) * ps // grows into untouched memory
			}
			n := extent / ps
			lo := rng.IntN(n)
			hi := lo + 1 + rng.IntN(min(n-lo, 48))
			h := Hint{Clean: clean, Bounded: rng.IntN(3) > 0, Writes: []Span{c.pageSpan(lo, hi)}}
			known := len(c.u.chunks) // chunks of the extents so far
			c.start(h, extent)
			for ch := known; ch < len(c.u.chunks); ch++ {
				if c.u.chunks[ch].state == chunkCold {
					bornCold++ // a chunk this Start added, cold at once
				}
			}
			for range rng.IntN(12) {
				c.write(lo*ps + rng.IntN((hi-lo)*ps))
			}
			if rng.IntN(3) == 0 {
				c.touch(lo + rng.IntN(hi-lo))
			}
			c.stop()
		}
		if !bytes.Equal(c.mem, c.model) {
			t.Fatalf("seed %d: the memory is not what was written", seed)
		}
	}
	if bornCold == 0 {
		t.Fatal("no chunk a grown extent added was cold: the test does not exercise untouched memory")
	}
}

// TestUffdUntouchedNotRead: a region over a large extent the program has
// not touched reads none of it: it stays unpopulated, and its chunks are
// cold.
func TestUffdUntouchedNotRead(t *testing.T) {
	c := newMixedCase(t)
	if err := c.u.Start(len(c.mem)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.u.Stop(); err != nil {
		t.Fatal(err)
	}
	arg := uffd.PMScanArg{CategoryMask: uffd.PageIsPresent, ReturnMask: uffd.PageIsPresent,
		Start: uint64(c.u.base), End: uint64(c.u.base.Add(len(c.mem)))}
	n, err := uffd.Scan(c.u.res.pmfd, &arg, c.u.vec)
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("untouched memory was populated by a region: %+v", c.u.vec[:n])
	}
	for ch := range c.u.chunks {
		if c.u.chunks[ch].state != chunkCold {
			t.Fatalf("chunk %d of untouched memory is %v, want cold", ch, c.u.chunks[ch].state)
		}
	}
}

// TestUffdFirstTouchNotTimed: a copy that populated twin pages is not a
// sample of what copying costs (a first touch costs tens of microseconds a
// page on some machines, and one such figure made lazy slaves choose
// faulting regions for good); the next one is. Comparing pages whose
// twins were never written reads no twin, so it populates none.
func TestUffdFirstTouchNotTimed(t *testing.T) {
	c := newMixedCase(t)
	ps := c.ps
	const chunks = 3 // enough pages to be timed (minTimedPages)
	for ch := range chunks {
		c.mem[ch*chunkPages*ps] = 1 // touched, so the chunk starts hot
	}
	if err := c.u.Start(len(c.mem)); err != nil {
		t.Fatal(err)
	}
	write := func(v byte) {
		for ch := range chunks {
			if c.u.chunks[ch].state != chunkHot {
				t.Fatalf("chunk %d is %v, want hot", ch, c.u.chunks[ch].state)
			}
			for p := ch*chunkPages + 1; p < (ch+1)*chunkPages; p++ {
				c.mem[p*ps] = v // untouched until the first call
			}
		}
	}
	held := func() (n int) {
		for _, w := range c.u.held {
			n += bits.OnesCount64(w)
		}
		return n
	}
	write(1)
	h := held()
	if dirty, err := c.u.Stop(); err != nil || len(dirty) != chunks*(chunkPages-1) {
		t.Fatalf("Stop = %v, %v; want the %d pages written", dirty, err, chunks*(chunkPages-1))
	}
	if held() != h {
		t.Fatalf("comparing pages with twins never written populated %d twin pages", held()-h)
	}
	n := c.u.costs.copyNS.n
	if err := c.u.Start(len(c.mem)); err != nil { // copies them into their twins
		t.Fatal(err)
	}
	if held() == h {
		t.Fatal("the Start did not populate the twins it copied into")
	}
	if c.u.costs.copyNS.n != n {
		t.Fatal("a Start that populated twin pages was taken as a sample of copying")
	}
	write(2)
	if _, err := c.u.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := c.u.Start(len(c.mem)); err != nil {
		t.Fatal(err)
	}
	if c.u.costs.copyNS.n != n+1 {
		t.Fatalf("copying into twins already in memory was not sampled (%d samples, want %d)", c.u.costs.copyNS.n, n+1)
	}
	if _, err := c.u.Stop(); err != nil {
		t.Fatal(err)
	}
}

// Pages whose twins were never written are compared with zero: a page
// that goes from zero to a value and back to zero, in every kind of
// region and between regions, is reported exactly when it changed, and
// its twin is its content at each Start.
func TestUffdZeroTwinsExact(t *testing.T) {
	for _, mode := range []uffdMode{uffdModePlain, uffdModeAlternate, uffdModeAdaptive} {
		c := newMixedCase(t)
		c.u.mode = mode
		ps := c.ps
		pages := len(c.mem) / ps
		for i := range 40 {
			c.start()
			written := map[int]bool{}
			for k := range 24 {
				p := (i*7 + k*11) % pages
				v := byte(0) // back to zero every other time
				if (i+k)%2 == 0 {
					v = byte(i + 1)
				}
				c.mem[p*ps+(i+k)%ps] = v
				written[p] = true
			}
			// Every changed page, and only pages written (a write of a
			// page's own bytes may be reported: it was written).
			got, err := c.u.Stop()
			if err != nil {
				t.Fatal(err)
			}
			for p := range pages {
				changed := !bytes.Equal(c.mem[p*ps:(p+1)*ps], c.snap[p*ps:(p+1)*ps])
				_, reported := slices.BinarySearch(got, p)
				if changed && !reported || reported && !written[p] {
					t.Fatalf("mode %d, region %d: page %d changed %v, written %v, reported %v", mode, i, p, changed, written[p], reported)
				}
			}
			if i%5 == 0 { // between regions: the next Start's twins see it
				c.mem[((i*13)%pages)*ps] = byte(i % 3)
			}
		}
		if err := c.u.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
