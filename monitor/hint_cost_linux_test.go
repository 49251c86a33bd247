//go:build linux

package monitor

import "testing"

// In a stencil loop proven clean and bounded over an extent that is not
// a whole number of chunks (the arena's rarely is), a Start compares no
// page once each array's chunks were compared once, after the first
// Start as after a stretch not proven clean (region 6): the last chunk,
// which the extent cuts but which has no tracked page above it, is as
// current as the others once compared.
func TestUffdHintCostPartialChunk(t *testing.T) {
	c := newMixedCase(t)
	ps := c.ps
	const top = 120 // chunk 7 holds pages 112..119
	arrays := [2][2]int{{0, 64}, {64, top}}
	for k := range 30 {
		a := arrays[k%2]
		h := Hint{Clean: k > 0 && k != 6, Bounded: true, Writes: []Span{c.pageSpan(a[0], a[1])}}
		c.hstartAt(h, top*ps)
		if (k >= 2 && k < 6 || k >= 8) && c.u.startCompared != 0 {
			t.Errorf("region %d over pages [%d, %d): Start compared %d pages (chunk 7: %+v, dirtyAt %d), want 0",
				k, a[0], a[1], c.u.startCompared, c.u.chunks[7], c.u.dirtyAt)
		}
		for p := a[0]; p < a[1]; p++ {
			c.mem[p*ps+k]++
		}
		c.stop()
	}
}
