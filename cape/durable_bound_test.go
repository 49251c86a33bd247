package cape

import (
	"testing"

	"github.com/cape-go/cape/internal/ckptlog"
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

// TestDurableHashChain checks when a region's entry hash is chained (a
// clean stretch right after the region the master last ended, the same
// extent) and how a replay checks a chained record: against the arena's
// hash right after the previous region, and only that region.
func TestDurableHashChain(t *testing.T) {
	var c hashChain
	if c.serves(1, 100, true) {
		t.Fatal("the first region is chained")
	}
	c.ended(1, 100)
	for _, x := range []struct {
		seq    uint64
		extent int
		clean  bool
		want   bool
	}{{2, 100, true, true}, {2, 100, false, false}, {3, 100, true, false}, {2, 200, true, false}} {
		if got := c.serves(x.seq, x.extent, x.clean); got != x.want {
			t.Fatalf("region %d of %d bytes, clean %v: chained %v, want %v", x.seq, x.extent, x.clean, got, x.want)
		}
	}
	d := &durable{exitHash: 42, exitSeq: 5}
	for _, x := range []struct {
		rec  ckptlog.Region
		hash uint64
		want bool
	}{
		{ckptlog.Region{Seq: 6, EntryHash: chainedHash}, 42, true},
		{ckptlog.Region{Seq: 6, EntryHash: chainedHash}, 43, false},
		{ckptlog.Region{Seq: 7, EntryHash: chainedHash}, 42, false},
		{ckptlog.Region{Seq: 6, EntryHash: 9}, 9, true},
		{ckptlog.Region{Seq: 6, EntryHash: 9}, 42, false},
	} {
		if got := d.entryMatches(&x.rec, x.hash); got != x.want {
			t.Fatalf("record %d with entry hash %d against %d: %v, want %v", x.rec.Seq, x.rec.EntryHash, x.hash, got, x.want)
		}
	}
	if arenaHash(make([]byte, 8192), 4096, nil, nil) == chainedHash {
		t.Fatal("an arena hashed to chainedHash")
	}
}
