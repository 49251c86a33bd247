//go:build linux

package monitor

import "testing"

// Hints over an extent that changes: a Start that grows or shrinks the
// extent must not take for current the twins of a chunk it did not
// compare whole. (These tests failed before commit 39ff948, which marks a
// chunk synced only when every page of it was compared and makes a Start
// over a smaller extent unproven; given no hint, the same sequences were
// tracked exactly.)

// A Start that grows the extent from the middle of a chunk outside the
// region's bounds, after a stretch not proven clean (as after an
// allocation, which is what grows the arena), does not compare that
// chunk's pages below the old extent: a page of it written in that
// stretch has a stale twin until a Start compares the chunk, which the
// next region proven clean whose bounds include it must do. Else its Stop
// misses a write of the region that restores the page's content at the
// last comparison (and a wrong delta follows). (Before 39ff948, startMixed
// marked the chunk synced after copyNew.)
func TestUffdHintGrowPartialChunk(t *testing.T) {
	c := newMixedCase(t)
	ps := c.ps
	const old, x = 100, 98 // the first extent ends in chunk 6 (96..111); x in it
	a := Hint{Bounded: true, Writes: []Span{c.pageSpan(0, 48)}}
	b := Hint{Bounded: true, Writes: []Span{c.pageSpan(48, old)}}
	for k := range 8 { // a stencil over A = [0, 48) and B = [48, 100), not writing x
		h, lo, hi := a, 0, 48
		if k%2 == 1 {
			h, lo, hi = b, 48, old
		}
		h.Clean = k > 0
		c.hstartAt(h, old*ps)
		for p := lo; p < hi; p++ {
			if p != x {
				c.mem[p*ps+k]++
			}
		}
		c.stop()
	}
	if c.state(x/chunkPages) != chunkHot {
		t.Fatalf("chunk %d: %v, want hot", x/chunkPages, c.state(x/chunkPages))
	}
	// Sequential code writes x, nobody announces it; the arena grows.
	c.mem[x*ps+1]++
	c.hstartAt(a, len(c.mem)) // not proven clean, bounds A
	c.mem[5*ps]++
	c.stop()
	// Proven clean, bounds B: x's twin must be its content now.
	b.Clean = true
	c.hstartAt(b, len(c.mem))
	c.mem[x*ps+1]-- // the region restores x's byte: a change since Start
	c.stop()
}

// A Start over an extent smaller than the last one copies into the twins
// only the known-written pages (the last Stop's, the announced) below it,
// and forgets the others: the next region proven clean over the whole
// extent must compare their chunks at Start, else its Stop reports pages
// the region did not write (the last region's, the injection). The
// arena's extent never shrinks, so cape does not do this; a Tracker may be
// given any extent.
func TestUffdHintShrinkForgetsWritten(t *testing.T) {
	s := newStencil(t, 10) // the next region writes A
	ps := s.ps
	const x = stencilPages + 20
	s.willWrite(x*ps+8, 8)
	s.hstartAt(s.hint(s.k, true), stencilPages*ps) // A only
	s.mem[3*ps]++
	s.stop()
	s.k++
	s.hstartAt(s.hint(s.k, true), len(s.mem)) // B, proven clean: checks the twins of B
	s.mem[(stencilPages+1)*ps]++
	s.stop()
}

// A Start over an extent that ends in the middle of a stale chunk
// compares only the chunk's pages below the extent: a page above it
// written in a stretch not proven clean keeps a stale twin, which the
// next region proven clean over the whole extent must compare. (Before
// 39ff948, refreshHot marked synced every chunk of a run clipped to n.)
func TestUffdHintShrinkStraddle(t *testing.T) {
	s := newStencil(t, 9) // the next region writes B
	ps := s.ps
	const x = 105 // chunk 6 (96..111), in B
	s.region(true, x)
	s.mem[x*ps+1]++                      // not announced
	s.hstartAt(s.hint(1, false), 100*ps) // bounds B, extent to page 100
	s.mem[70*ps]++
	s.stop()
	s.hstartAt(s.hint(1, true), len(s.mem)) // B (x among its pages), proven clean
	s.mem[(stencilPages+1)*ps]++
	s.stop()
}
