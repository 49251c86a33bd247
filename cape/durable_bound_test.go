package cape

import (
	"testing"

	"github.com/cape-go/cape/delta"
)

// TestDurableDefaultBound checks the bound without --checkpoint-max: four
// times the arena's extent in use, at least 64 MiB, never shrinking when
// the extent does; --checkpoint-max replaces it.
func TestDurableDefaultBound(t *testing.T) {
	d := &durable{}
	for _, c := range []struct {
		extent int
		want   int64
	}{
		{0, 64 << 20},
		{4 << 20, 64 << 20},
		{100 << 20, 400 << 20},
		{1 << 20, 400 << 20}, // the extent shrank: the bound stays
		{200 << 20, 800 << 20},
	} {
		if got := d.bound(c.extent); got != c.want {
			t.Fatalf("default bound for an extent of %d bytes: %d, want %d", c.extent, got, c.want)
		}
	}
	d = &durable{max: 1 << 20}
	if got := d.bound(100 << 20); got != 1<<20 {
		t.Fatalf("bound with --checkpoint-max 1M: %d", got)
	}
}

// TestDurableHashCache checks that an entry hash served by the page-hash
// cache (a clean stretch: only the pages of the last merged delta changed)
// equals the full hash of the arena, and that a stretch not proven clean
// hashes every page again.
func TestDurableHashCache(t *testing.T) {
	const ps = 4096
	mem := make([]byte, 10*ps+100) // a partial last page
	for i := range mem {
		mem[i] = byte(i * 7)
	}
	var c hashCache
	hashes, stale := c.plan(1, len(mem), ps, true) // nothing cached yet
	if stale != nil {
		t.Fatal("an empty cache served a region")
	}
	if got, want := entryHash(mem, ps, nil, nil, nil, hashes, stale), arenaHash(mem, ps, nil, nil); got != want {
		t.Fatalf("full hash %x, want %x", got, want)
	}
	merged := &delta.Delta{Runs: []delta.Run{{Off: 2*ps + 10, Data: make([]byte, 5)}, {Off: 5*ps - 1, Data: make([]byte, ps+2)}, {Off: 10 * ps, Data: make([]byte, 100)}}}
	c.changed(1, merged, ps)
	if err := merged.Apply(mem); err != nil {
		t.Fatal(err)
	}
	hashes, stale = c.plan(2, len(mem), ps, true)
	if stale == nil {
		t.Fatal("a clean stretch was not served by the cache")
	}
	for p, want := range []bool{false, false, true, false, true, true, true, false, false, false, true} {
		if stale[p] != want {
			t.Fatalf("page %d stale %v, want %v", p, stale[p], want)
		}
	}
	if got, want := entryHash(mem, ps, nil, nil, nil, hashes, stale), arenaHash(mem, ps, nil, nil); got != want {
		t.Fatalf("cached hash %x, want %x", got, want)
	}
	c.changed(2, &delta.Delta{}, ps)
	mem[0]++ // sequential code wrote: the stretch is not clean
	hashes, stale = c.plan(3, len(mem), ps, false)
	if stale != nil {
		t.Fatal("a stretch not proven clean was served by the cache")
	}
	if got, want := entryHash(mem, ps, nil, nil, nil, hashes, stale), arenaHash(mem, ps, nil, nil); got != want {
		t.Fatalf("full hash %x, want %x", got, want)
	}
}
