//go:build linux

package monitor

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// The hints of mixed regions (Hint, SetHint): the tests drive a
// mixedCase (256 pages, 16 chunks, regions forced to mixed) and check
// every Stop against the pages whose content changed in the region, and
// the twins of the pages a region's bounds meet against the memory at its
// Start.

// pageSpan is the byte span of pages [lo, hi).
func (c *mixedCase) pageSpan(lo, hi int) Span { return Span{Off: lo * c.ps, Len: (hi - lo) * c.ps} }

// hstart gives h to the tracker and starts a region over the whole
// memory.
func (c *mixedCase) hstart(h Hint) { c.t.Helper(); c.hstartAt(h, len(c.mem)) }

// hstartAt gives h to the tracker, starts a region over extent bytes and
// checks the twin of every page below extent that h's bounds meet (every
// page if h does not bound the writes).
func (c *mixedCase) hstartAt(h Hint, extent int) {
	c.t.Helper()
	c.snap = append(c.snap[:0], c.mem...)
	c.u.SetHint(h)
	if err := c.u.Start(extent); err != nil {
		c.t.Fatal(err)
	}
	if c.u.mode == uffdModePlain && (c.u.bare || c.u.kind != kindPlain) {
		c.t.Fatalf("region %d is not mixed (kind %v, bare %v)", c.i, c.u.kind, c.u.bare)
	}
	c.i++
	for p := range extent / c.ps {
		if h.Bounded && (c.u.kind == kindPlain || c.u.snap) && !meets(h.Writes, p*c.ps, (p+1)*c.ps) {
			continue
		}
		if !bytes.Equal(c.u.Twin(p), c.snap[p*c.ps:(p+1)*c.ps]) {
			c.t.Fatalf("region %d (%v; hint Clean %v, Bounded %v, %d spans): twin of page %d (chunk %+v, dirtyAt %d) is not its content at Start",
				c.i, c.u.tracked(), h.Clean, h.Bounded, len(h.Writes), p, c.u.chunks[p/chunkPages], c.u.dirtyAt)
		}
	}
}

// willWrite announces the bytes [off, off+n) and changes one byte in
// each of their pages, the first of the span in the first page.
func (c *mixedCase) willWrite(off, n int) {
	c.t.Helper()
	if err := c.u.WillWrite(off, n); err != nil {
		c.t.Fatal(err)
	}
	for b := off; b < off+n; b = (b/c.ps + 1) * c.ps {
		c.mem[b]++
	}
}

// stencil is two arrays of pages, A = [0, 64) and B = [64, 128) (four
// chunks each), that regions write in turn, as a stencil's grids: region
// k writes every page of A if k is even, of B if odd, and declares it.
type stencil struct {
	*mixedCase
	k int // regions run
}

const stencilPages = 64

// array returns the first page of the array region k writes.
func (s *stencil) array(k int) int { return (k % 2) * stencilPages }

// hint returns the hint of region k: bounded to its array, clean unless
// k is 0 or clean is false.
func (s *stencil) hint(k int, clean bool) Hint {
	lo := s.array(k)
	return Hint{Clean: clean && k > 0, Bounded: true, Writes: []Span{s.pageSpan(lo, lo+stencilPages)}}
}

// region runs the next region with the given cleanness, writing every
// page of its array but skip, and returns what Stop reported.
func (s *stencil) region(clean bool, skip ...int) []int {
	s.t.Helper()
	s.hstart(s.hint(s.k, clean))
	lo := s.array(s.k)
	for p := lo; p < lo+stencilPages; p++ {
		if !slices.Contains(skip, p) {
			s.mem[p*s.ps+s.i%s.ps]++
		}
	}
	s.k++
	return s.stop()
}

func newStencil(t *testing.T, warm int) *stencil {
	s := &stencil{mixedCase: newMixedCase(t)}
	for range warm {
		s.region(true)
	}
	return s
}

// stale reports whether chunk ch's twins may be stale (synced <
// dirtyAt), outside a region.
func (c *mixedCase) stale(ch int) bool { return c.u.chunks[ch].synced < c.u.dirtyAt }

// hintRows is the layout of TestUffdHintExact: two arrays of rows of
// 1.25 pages, aligned to neither pages nor chunks, and the memory after
// them, which only the code between regions writes.
type hintRows struct{ lo, rows, row int }

// rowSpan is the interior of row r (its first and last 16 bytes are a
// halo the regions do not write).
func (a hintRows) rowSpan(r int) Span { return Span{Off: a.lo + r*a.row + 16, Len: a.row - 32} }

// Regions over two arrays of rows, written in turn, each declaring a
// block of rows of one array (or, rarely, nothing) and writing some bytes
// of some of them; between regions, announced injections anywhere, and in
// the stretches not proven clean writes nobody announced. Every Stop
// reports exactly the pages the region changed, and the twins of the
// pages its bounds meet are the memory at its Start.
func TestUffdHintExact(t *testing.T) { hintExact(t, false, uffdModePlain) }

// The same with, now and then, a region tracked by faults or compared
// (hints apply only to mixed regions; after those, Starts compare again).
func TestUffdHintTransitions(t *testing.T) { hintExact(t, true, uffdModePlain) }

// hintExact runs the sequence with regions in mode (mixed: uffdModePlain,
// or uffdModeSnap, which makes snapshot regions of those it can) and, with
// transitions, now and then a faults or compared one. It returns the
// number of snapshot regions.
func hintExact(t *testing.T, transitions bool, mode uffdMode) (snaps int) {
	return hintExactOn(newMixedCase(t), transitions, mode)
}

// hintExactOn is hintExact on the tracker of c.
func hintExactOn(c *mixedCase, transitions bool, mode uffdMode) (snaps int) {
	t := c.t
	ps := c.ps
	rng := rand.New(rand.NewPCG(7, 11))
	row := ps + ps/4
	arrays := [2]hintRows{{3*ps + 40, 75, row}, {99*ps + 8, 70, row}}
	var cleanZero, cleanCompared, unclean, coldStarts int
	for k := range 300 {
		// The stretch since the last Stop.
		clean := k > 0 && rng.IntN(5) > 0
		if !clean {
			unclean++
			for range 1 + rng.IntN(4) {
				c.mem[rng.IntN(len(c.mem))]++
			}
		}
		for range rng.IntN(3) {
			off := rng.IntN(len(c.mem) - 1)
			c.willWrite(off, 1+rng.IntN(min(3*ps, len(c.mem)-off-1)))
		}
		a := arrays[k%2]
		r0 := rng.IntN(a.rows)
		r1 := r0 + 1 + rng.IntN(a.rows-r0)
		if rng.IntN(2) == 0 {
			r0, r1 = 0, a.rows
		}
		h := Hint{Clean: clean, Bounded: rng.IntN(10) > 0}
		for r := r0; r < r1; r++ {
			h.Writes = append(h.Writes, a.rowSpan(r))
		}
		c.u.mode = mode
		if transitions && k%10 == 9 {
			c.u.mode = []uffdMode{uffdModeFaults, uffdModeCompare}[k/10%2]
		}
		c.hstart(h)
		for _, ch := range c.u.chunks {
			if ch.state == chunkCold {
				coldStarts++
				break
			}
		}
		switch {
		case c.u.snap:
			snaps++
		case c.u.kind != kindPlain:
		case clean && c.u.startCompared == 0:
			cleanZero++
		case clean:
			cleanCompared++
		}
		for r := r0; r < r1; r++ {
			if rng.IntN(10) < 7 {
				s := a.rowSpan(r)
				for range 1 + rng.IntN(3) {
					c.mem[s.Off+rng.IntN(s.Len)]++
				}
			}
		}
		c.stop()
	}
	t.Logf("%d Starts proven clean compared nothing, %d compared stale chunks; %d not proven clean; %d with a cold chunk",
		cleanZero, cleanCompared, unclean, coldStarts)
	if mode == uffdModePlain && (cleanZero == 0 || cleanCompared == 0 || coldStarts == 0) {
		t.Errorf("the sequence did not exercise the hints: %d clean Starts compared nothing, %d compared stale chunks, %d had a cold chunk",
			cleanZero, cleanCompared, coldStarts)
	}
	return snaps
}

// A write nobody announced, between regions, to a hot page inside the
// next region's bounds (a stretch not proven clean): the next Start
// compares the chunk, so its Stop does not report the page (which it did
// not write) and the page's twin is its content at Start, in which the
// region then writes another byte.
func TestUffdHintUncleanInBounds(t *testing.T) {
	s := newStencil(t, 10) // the next region writes A
	p, q := 17, 50         // hot pages of A, chunks 1 and 3
	for _, x := range []int{p, q} {
		if ch := x / chunkPages; s.state(ch) == chunkCold || s.stale(ch) {
			t.Fatalf("chunk %d before the test: %+v (dirtyAt %d), want hot with current twins", ch, s.u.chunks[ch], s.u.dirtyAt)
		}
		s.mem[x*s.ps+100]++
	}
	// hstart checks the twins of A; hstop that p is not reported.
	got := s.region(false, p)
	if slices.Contains(got, p) || !slices.Contains(got, q) {
		t.Errorf("Stop = %v, want q=%d and not p=%d", got, q, p)
	}
	for range 4 {
		s.region(true)
	}
}

// A write nobody announced, between regions, to a chunk outside the
// bounds of the next region, followed by regions proven clean that do not
// write it: the chunk's twins are stale until a Start compares it, which
// the first region whose bounds include it does, so that its Stop does
// not report the old write. The chunk is hot (the other array of the
// stencil) or cold (armed: memory no region writes).
func TestUffdHintStaleChunk(t *testing.T) {
	t.Run("Hot", func(t *testing.T) {
		s := newStencil(t, 9)  // the next region writes B
		x := stencilPages + 20 // chunk 5, of B
		s.region(true, x)      // not x: the next Start does not copy it as written
		ch := x / chunkPages
		if s.state(ch) == chunkCold || s.stale(ch) {
			t.Fatalf("chunk %d before the test: %+v, want hot with current twins", ch, s.u.chunks[ch])
		}
		s.mem[x*s.ps+200]++
		s.region(false) // A, not proven clean: chunk 5 not compared
		if !s.stale(ch) {
			t.Fatalf("chunk %d after a Start not proven clean that did not compare it: %+v, dirtyAt %d; want stale",
				ch, s.u.chunks[ch], s.u.dirtyAt)
		}
		// Regions proven clean over A only.
		for range 6 {
			s.hstart(s.hint(0, true))
			s.mem[3*s.ps+s.i]++
			s.stop()
		}
		if !s.stale(ch) || s.state(ch) == chunkCold {
			t.Fatalf("chunk %d after clean regions that did not include it: %+v, want hot and stale", ch, s.u.chunks[ch])
		}
		s.k = 1 // B, proven clean: its Start must compare chunk 5
		got := s.region(true, x)
		if slices.Contains(got, x) {
			t.Errorf("Stop = %v reports page %d, written before the region", got, x)
		}
		if s.u.startCompared == 0 {
			t.Errorf("the Start of B compared no page")
		}
	})
	t.Run("Cold", func(t *testing.T) {
		s := newStencil(t, 20)
		x := 200 // chunk 12, never written by a region
		ch := x / chunkPages
		if s.state(ch) != chunkCold {
			t.Fatalf("chunk %d after 20 regions: %v, want cold", ch, s.state(ch))
		}
		s.mem[x*s.ps+300]++
		s.region(false) // its Start wakes chunk 12, which it does not compare
		for range 6 {
			s.region(true)
		}
		// A region proven clean whose bounds are chunk 12.
		h := Hint{Clean: true, Bounded: true, Writes: []Span{s.pageSpan(12*chunkPages, 13*chunkPages)}}
		s.hstart(h)
		s.mem[(x+1)*s.ps]++
		got := s.stop()
		if !slices.Equal(got, []int{x + 1}) {
			t.Errorf("Stop = %v, want [%d]", got, x+1)
		}
	})
}

// hintOps is one step of TestUffdHintZero: the bytes a region changes,
// those changed between regions without an announcement, and the spans
// announced (and changed) before the next Start.
type hintOps struct {
	in, seq []int
	inject  []Span
}

// The zero Hint, or a hint that does not bound the writes and proves
// nothing clean, changes nothing: trackers given one before every Start
// report what a tracker given none does, and their chunks go through the
// same states, on a random sequence of regions and writes between them.
func TestUffdHintZero(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	var cs [3]*mixedCase
	for i := range cs {
		cs[i] = newMixedCase(t)
	}
	ps, n := cs[0].ps, len(cs[0].mem)
	page := func() int {
		if rng.IntN(10) < 7 {
			return rng.IntN(48) // most writes fall in three chunks
		}
		return rng.IntN(n / ps)
	}
	for k := range 200 {
		var op hintOps
		for range rng.IntN(6) {
			op.in = append(op.in, page()*ps+rng.IntN(ps))
		}
		for range rng.IntN(3) {
			op.seq = append(op.seq, page()*ps+rng.IntN(ps))
		}
		if rng.IntN(3) == 0 {
			off := page() * ps
			op.inject = append(op.inject, Span{Off: off, Len: min(1+rng.IntN(2*ps), n-off)})
		}
		var got [3][]int
		for i, c := range cs {
			switch i {
			case 0:
				c.snap = append(c.snap[:0], c.mem...)
				if err := c.u.Start(n); err != nil {
					t.Fatal(err)
				}
				c.i++
			case 1:
				c.hstart(Hint{})
			case 2:
				c.hstart(Hint{Writes: []Span{{Off: 0, Len: ps}}})
			}
			for _, b := range op.in {
				c.mem[b]++
			}
			got[i] = c.stop()
			for _, b := range op.seq {
				c.mem[b]++
			}
			for _, w := range op.inject {
				c.willWrite(w.Off, w.Len)
			}
		}
		for i := 1; i < len(cs); i++ {
			if !slices.Equal(got[i], got[0]) {
				t.Fatalf("region %d: Stop with hint %d = %v, without = %v", k, i, got[i], got[0])
			}
			for ch := range cs[0].u.chunks {
				a, b := cs[0].u.chunks[ch], cs[i].u.chunks[ch]
				if a.state != b.state || a.idle != b.idle || a.wait != b.wait {
					t.Fatalf("region %d: chunk %d with hint %d: %+v, without: %+v", k, ch, i, b, a)
				}
			}
			if cs[i].u.startCompared != cs[0].u.startCompared {
				t.Fatalf("region %d: Start compared %d pages with hint %d, %d without", k, cs[i].u.startCompared, i, cs[0].u.startCompared)
			}
		}
	}
}

// Between after Starts proven clean leaves out the pages the last region
// wrote (in hot chunks) and those announced, also in a cold chunk the
// announcement wakes; after a stretch not proven clean, a page written
// then may have changed at that Start, and again at the clean Start that
// first compares its chunk and finds it changed. Every page whose content
// changed since the previous Start other than by the last region or an
// announcement may have changed.
func TestUffdHintBetween(t *testing.T) {
	s := newStencil(t, 0)
	s.u.WatchBetween()
	ps := s.ps
	prev := slices.Clone(s.mem)
	var last, announced []int // pages of the last Stop, announced since
	x := stencilPages + 20    // written between regions, not announced, in B
	check := func(clean bool) Between {
		t.Helper()
		b := s.u.Between()
		for p := range len(s.mem) / ps {
			changed := !bytes.Equal(s.mem[p*ps:(p+1)*ps], prev[p*ps:(p+1)*ps])
			if changed && !slices.Contains(last, p) && !slices.Contains(announced, p) && !b.MayHaveChanged(p) {
				t.Fatalf("Start %d: page %d changed, not by the last region nor announced, and Between says it did not", s.i, p)
			}
		}
		if clean && s.i > 3 {
			for _, p := range append(slices.Clone(last), announced...) {
				if b.MayHaveChanged(p) {
					t.Errorf("Start %d, proven clean: page %d (last region's or announced; chunk %+v) may have changed",
						s.i, p, s.u.chunks[p/chunkPages])
				}
			}
		}
		prev = append(prev[:0], s.mem...)
		announced = announced[:0]
		return b
	}
	for k := range 24 {
		clean := k > 0 && k != 14
		if k == 14 {
			s.mem[x*ps+9]++ // the next region writes A
		}
		s.hstart(s.hint(s.k, clean))
		b := check(clean)
		switch k {
		case 14:
			if !b.MayHaveChanged(x) {
				t.Errorf("Start %d, not proven clean: page %d, written since the last Stop, may not have changed", s.i, x)
			}
		case 15:
			if !b.MayHaveChanged(x) || s.u.startCompared == 0 {
				t.Errorf("Start %d, proven clean, first to compare chunk %d: page %d may have changed %v, %d pages compared; want true, some",
					s.i, x/chunkPages, x, b.MayHaveChanged(x), s.u.startCompared)
			}
			for p := stencilPages; p < 2*stencilPages; p++ {
				if p != x && b.MayHaveChanged(p) {
					t.Errorf("Start %d, proven clean: page %d of B, which its comparison found unchanged, may have changed", s.i, p)
				}
			}
		}
		lo := s.array(s.k)
		for p := lo; p < lo+stencilPages; p++ {
			if k != 13 || p != x { // Start 14 does not copy x as written
				s.mem[p*ps+s.i%ps]++
			}
		}
		s.k++
		last = s.stop()
		// Announced: a page of each array and one of a chunk no region
		// writes (cold after the first regions, woken by the
		// announcement).
		for _, p := range []int{3 + k, stencilPages + 40 + k, 130 + 5*k} {
			s.willWrite(p*ps+8, 16)
			announced = append(announced, p)
		}
	}
}

// In a stencil loop proven clean and bounded, with announced injections
// into both arrays, a Start compares no page once each array's chunks
// were compared once, and a Stop compares only the chunks of the array
// the region writes.
func TestUffdHintCost(t *testing.T) {
	s := newStencil(t, 0)
	ps := s.ps
	for k := range 40 {
		s.hstart(s.hint(s.k, true))
		if k >= 2 && s.u.startCompared != 0 {
			t.Errorf("region %d: Start compared %d pages, want 0", k, s.u.startCompared)
		}
		lo := s.array(s.k)
		compared := 0
		for clo, chi := range s.u.comparedRuns(len(s.mem) / ps) {
			if clo < lo || chi > lo+stencilPages {
				t.Errorf("region %d over pages [%d, %d): Stop compares pages [%d, %d)", k, lo, lo+stencilPages, clo, chi)
			}
			compared += chi - clo
		}
		if compared != stencilPages {
			t.Errorf("region %d: Stop compares %d pages, want the %d of its array", k, compared, stencilPages)
		}
		for p := lo; p < lo+stencilPages; p++ {
			s.mem[p*ps+s.i%ps]++
		}
		s.k++
		s.stop()
		// The halo exchange: a row of each array is injected.
		s.willWrite((k%stencilPages)*ps, 2*ps)
		s.willWrite((stencilPages+(k*7)%stencilPages)*ps+64, ps)
	}
}

// Random regions with random bounds over an extent that changes now and
// then (grows or shrinks by any number of pages, in a chunk or not),
// random writes between regions, announced or, in stretches not proven
// clean, anywhere: every Stop and the twins its bounds meet are exact,
// and Between tells every page changed since the previous Start other
// than by the last region and announced writes.
func TestUffdHintRandomExtents(t *testing.T) { hintRandomExtents(t, false) }

// hintRandomExtents runs TestUffdHintRandomExtents's sequences, on
// writes-only trackers (TwinWritesOnly) if writesOnly.
func hintRandomExtents(t *testing.T, writesOnly bool) {
	for seed := range uint64(16) {
		c := newMixedCase(t)
		c.u.WatchBetween()
		c.u.writesOnly = writesOnly
		ps := c.ps
		rng := rand.New(rand.NewPCG(seed, 11))
		extent := (5 + rng.IntN(60)) * ps
		var prev []byte
		var last, announced []int
		for k := range 150 {
			clean := k > 0 && rng.IntN(5) > 0
			if !clean {
				for range 1 + rng.IntN(4) {
					c.mem[rng.IntN(len(c.mem))]++
				}
			}
			if rng.IntN(8) == 0 {
				extent = (5 + rng.IntN(len(c.mem)/ps-4)) * ps
			}
			for range rng.IntN(3) {
				off := rng.IntN(extent - 1)
				n := 1 + rng.IntN(min(3*ps, extent-off-1))
				c.willWrite(off, n)
				for p := off / ps; p <= (off+n-1)/ps; p++ {
					announced = append(announced, p)
				}
			}
			np := extent / ps
			lo := rng.IntN(np)
			hi := lo + 1 + rng.IntN(min(np-lo, 40))
			if k%2 == 0 && rng.IntN(3) > 0 {
				lo, hi = 0, min(np, 20) // a hot stretch of memory
			}
			h := Hint{Clean: clean, Bounded: rng.IntN(10) > 0, Writes: []Span{c.pageSpan(lo, hi)}}
			c.hstartAt(h, extent)
			if k > 0 {
				b := c.u.Between()
				for p := range np {
					changed := !bytes.Equal(c.mem[p*ps:(p+1)*ps], prev[p*ps:(p+1)*ps])
					if changed && !slices.Contains(last, p) && !slices.Contains(announced, p) && !b.MayHaveChanged(p) {
						t.Fatalf("seed %d, region %d: page %d changed since the last Start, not by the last region nor announced; Between says it did not",
							seed, k, p)
					}
				}
			}
			prev = append(prev[:0], c.mem...)
			announced = announced[:0]
			for range rng.IntN(6) {
				c.mem[lo*ps+rng.IntN((hi-lo)*ps)]++
			}
			last = c.stop()
		}
	}
}
