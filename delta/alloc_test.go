//go:build !race

package delta

import "testing"

// TestSteadyStateAllocatesNothing checks what the package documentation
// promises a caller that keeps its deltas and its encoding buffer from one
// region to the next: once they have grown, a region's diff, encoding
// (uncompressed), decoding and merge allocate nothing.
func TestSteadyStateAllocatesNothing(t *testing.T) {
	const page, pages, nodes = 4096, 64, 3
	twin := make([]byte, page*pages)
	cur := make([][]byte, nodes)
	for k := range cur {
		cur[k] = make([]byte, len(twin))
		for i := k * 8; i < len(twin); i += 8 * nodes { // interleaved int64 writes
			cur[k][i] = byte(k + 1)
		}
	}
	base := PagedBase(page, func(p int) []byte { return twin[p*page : (p+1)*page] })
	own := make([]*Delta, nodes)
	got := make([]*Delta, nodes)
	for k := range own {
		own[k], got[k] = new(Delta), new(Delta)
	}
	merged := new(Delta)
	var buf []byte
	region := uint64(0)
	lim := ArenaLimits(uint64(len(twin)))
	cycle := func() {
		region++
		for k := range own {
			own[k].Reset(region, k)
			for p := 0; p < pages; p++ {
				Diff(own[k], uint64(p*page), cur[k][p*page:(p+1)*page], twin[p*page:(p+1)*page])
			}
			var err error
			if buf, err = own[k].AppendBinary(buf[:0], None); err != nil {
				t.Fatal(err)
			}
			if err := DecodeInto(got[k], buf, lim); err != nil {
				t.Fatal(err)
			}
		}
		if err := MergeBaseInto(merged, region, base, got...); err != nil {
			t.Fatal(err)
		}
	}
	if a := testing.AllocsPerRun(10, cycle); a != 0 {
		t.Errorf("a region's diff, encode, decode and merge allocate %v times, want 0", a)
	}
	if n := merged.Len(); n != len(twin) {
		t.Errorf("merged %d bytes, want %d", n, len(twin))
	}
}
