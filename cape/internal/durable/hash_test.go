package durable

import (
	"bytes"
	"slices"
	"testing"

	"github.com/cape-go/cape/internal/ckptlog"
)

// TestDefaultBound checks the bound without --checkpoint-max: four times
// the arena's extent in use, at least 64 MiB, never shrinking when the
// extent does; --checkpoint-max replaces it.
func TestDefaultBound(t *testing.T) {
	d := &Log{}
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
		if got := d.Bound(c.extent); got != c.want {
			t.Fatalf("default bound for an extent of %d bytes: %d, want %d", c.extent, got, c.want)
		}
	}
	d = &Log{max: 1 << 20}
	if got := d.Bound(100 << 20); got != 1<<20 {
		t.Fatalf("bound with --checkpoint-max 1M: %d", got)
	}
}

// TestHashChain checks when a region's entry hash is chained (a clean
// stretch right after the region the master last ended, the same extent)
// and how a replay checks a chained record: against the arena's hash right
// after the previous region, and only that region.
func TestHashChain(t *testing.T) {
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
	d := &Log{exitHash: 42, exitSeq: 5}
	for _, x := range []struct {
		rec  ckptlog.Region
		hash uint64
		want bool
	}{
		{ckptlog.Region{Seq: 6, EntryHash: ChainedHash}, 42, true},
		{ckptlog.Region{Seq: 6, EntryHash: ChainedHash}, 43, false},
		{ckptlog.Region{Seq: 7, EntryHash: ChainedHash}, 42, false},
		{ckptlog.Region{Seq: 6, EntryHash: 9}, 9, true},
		{ckptlog.Region{Seq: 6, EntryHash: 9}, 42, false},
	} {
		if got := d.entryMatches(&x.rec, x.hash); got != x.want {
			t.Fatalf("record %d with entry hash %d against %d: %v, want %v", x.rec.Seq, x.rec.EntryHash, x.hash, got, x.want)
		}
	}
	if ArenaHash(make([]byte, 8192), 4096, nil, nil) == ChainedHash {
		t.Fatal("an arena hashed to ChainedHash")
	}
}

// TestArenaHashEntryState checks that the hash of the arena at a region's
// entry is the same computed from the arena then, from the arena now with
// the written pages' twins, and with its unpopulated pages given; and that
// any changed byte, a changed extent or a wrong twin changes it.
func TestArenaHashEntryState(t *testing.T) {
	const ps = 256
	entry := make([]byte, 5*ps+100) // a partial last page
	for i := 2 * ps; i < 4*ps; i++ {
		entry[i] = byte(i*7 + i/ps) // no two pages alike
	}
	want := ArenaHashZero(entry, ps, nil, nil, nil)
	now := bytes.Clone(entry)
	now[10], now[3*ps+5], now[5*ps+99] = 1, 2, 3 // pages 0, 3 and 5 written
	twins := [][]byte{entry[:ps], entry[3*ps : 4*ps], entry[5*ps:]}
	zero := []bool{true, true, false, false, true, false}
	for _, c := range []struct {
		name string
		got  uint64
		same bool
	}{
		{"the twins of the written pages", ArenaHashZero(now, ps, []int{0, 3, 5}, twins, nil), true},
		{"the unpopulated pages given", ArenaHashZero(now, ps, []int{3, 5}, twins[1:], zero), true},
		{"the arena now", ArenaHashZero(now, ps, nil, nil, nil), false},
		{"a missing twin", ArenaHashZero(now, ps, []int{0, 3}, twins[:2], nil), false},
		{"a twin of another page", ArenaHashZero(now, ps, []int{0, 3, 5}, [][]byte{entry[:ps], entry[2*ps : 3*ps], entry[5*ps:]}, nil), false},
		{"a shorter extent", ArenaHashZero(entry[:5*ps], ps, nil, nil, nil), false},
		{"a longer extent of zeros", ArenaHashZero(append(bytes.Clone(entry), 0), ps, nil, nil, nil), false},
	} {
		if (c.got == want) != c.same {
			t.Errorf("%s: hash %016x, entry %016x: equal %v, want %v", c.name, c.got, want, c.got == want, c.same)
		}
	}
	for _, i := range []int{0, ps - 1, 2*ps + 31, 5*ps + 99} {
		b := bytes.Clone(entry)
		b[i] ^= 0x80
		if ArenaHashZero(b, ps, nil, nil, nil) == want {
			t.Errorf("flipping byte %d leaves the hash", i)
		}
	}
}

// TestStartHashAwait checks the background hash, from the written
// pages' twins, and its statistics.
func TestStartHashAwait(t *testing.T) {
	const ps = 512
	mem := bytes.Repeat([]byte{1, 2, 3}, 3000)
	entry := bytes.Clone(mem)
	twin := func(p int) []byte { return entry[p*ps : (p+1)*ps] }
	for _, written := range [][]int{nil, {0}, {2, 5}} {
		copy(mem, entry)
		for _, p := range written {
			mem[p*ps+7] ^= 0xff // written after the entry
		}
		pages := slices.Clone(written)
		d := &Log{}
		h := StartHash(mem, ps, pages, twin, nil)
		clear(pages) // the caller's slice may change once StartHash returns
		if got, want := d.Await(h), ArenaHashZero(entry, ps, nil, nil, nil); got != want {
			t.Fatalf("written %v: background hash %016x, want the entry's %016x", written, got, want)
		}
		if d.hashing <= 0 {
			t.Fatalf("the hash's time was not counted: %v", d.hashing)
		}
	}
}
