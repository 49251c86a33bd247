//go:build linux

package monitor

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/cape-go/cape/internal/testenv"
	"golang.org/x/sys/unix"
)

// twoSlotStore keeps, as a node's own replica does, the two newest
// versions of each page it was given; at returns the newest at most v.
type twoSlotStore struct {
	ps    int
	slots map[int][2]slotCopy
}

type slotCopy struct {
	v    uint64
	data []byte // nil: empty
}

func (s *twoSlotStore) keep(p int, v uint64, content []byte) {
	sl := s.slots[p]
	i := 0
	if sl[1].data == nil || (sl[0].data != nil && sl[1].v < sl[0].v) {
		i = 1
	}
	if sl[0].data == nil {
		i = 0
	}
	sl[i] = slotCopy{v, bytes.Clone(content)}
	s.slots[p] = sl
}

func (s *twoSlotStore) at(p int, v uint64) []byte {
	var best []byte
	bv := uint64(0)
	for _, c := range s.slots[p] {
		if c.data != nil && c.v <= v && (best == nil || c.v > bv) {
			best, bv = c.data, c.v
		}
	}
	return best
}

// TestLazyExternalTwins runs regions on a writes-only tracker whose
// twins come from a two-slot store of the pages each region wrote, kept
// after its Stop (distributed homes with self replicas), with and without
// Clean hints. Every region's
// report holds every page it changed and no page it did not write: not a
// page that sequential code changed after it was kept, nor one the store
// no longer matches; a page written back to zero is seen. Twin returns
// the page at the region's entry also after the region's pages were kept
// (a collect after the notice). The pages written every region have no
// twin page of the tracker's own.
func TestLazyExternalTwins(t *testing.T) {
	for _, clean := range []bool{false, true} {
		t.Run(map[bool]string{false: "compared", true: "clean"}[clean], func(t *testing.T) { externalTwins(t, clean) })
	}
}

// externalTwins is TestLazyExternalTwins; with clean, every Start is
// given a Clean hint, and the sequential change of a kept page is
// announced (WillWrite) as such a hint requires.
func externalTwins(t *testing.T, clean bool) {
	const pages = 8 * chunkPages
	ps := unix.Getpagesize()
	mem, tr, _, _ := newLazyRecorded(t, pages)
	u := plainRegions(tr)
	tr.TwinWritesOnly()
	store := &twoSlotStore{ps: ps, slots: map[int][2]slotCopy{}}
	var seq uint64 // the region in progress, or the last
	tr.TwinsFrom(func(p int) []byte { return store.at(p, seq-1) })
	hot := []int{3, 4, 5, 70, 71}
	const seqWritten, zeroed, same = 4, 70, 71
	for i := 1; i <= 12; i++ {
		seq = uint64(i)
		if clean && i > 1 {
			tr.(Hinter).SetHint(Hint{Clean: true})
		}
		if err := tr.Start(len(mem)); err != nil {
			t.Fatal(err)
		}
		entry := bytes.Clone(mem)
		written := map[int]bool{}
		for _, p := range hot {
			if p == seqWritten && i%3 == 0 {
				continue // not written by every region
			}
			written[p] = true
			switch {
			case p == zeroed && i >= 8:
				clear(mem[p*ps : (p+1)*ps]) // back to zero
			case p == same && i%2 == 0:
				copy(mem[p*ps+100:p*ps+108], entry[p*ps+100:p*ps+108]) // its own bytes
			default:
				mem[p*ps+100+i] = byte(i * 7)
			}
		}
		dirty, err := tr.Stop()
		if err != nil {
			t.Fatal(err)
		}
		for p := range pages {
			changed := !bytes.Equal(mem[p*ps:(p+1)*ps], entry[p*ps:(p+1)*ps])
			if changed && !slices.Contains(dirty, p) {
				t.Fatalf("region %d: page %d changed, not reported (dirty %v)", i, p, dirty)
			}
		}
		for _, p := range dirty {
			if !written[p] {
				t.Fatalf("region %d: page %d reported, not written by the region (dirty %v)", i, p, dirty)
			}
		}
		// The notice: the pages written are kept, as of this region.
		for _, p := range dirty {
			store.keep(p, seq, mem[p*ps:(p+1)*ps])
			tr.Kept(p, p+1)
		}
		// A collect after the notice reads the entry state.
		for _, p := range dirty {
			if !bytes.Equal(tr.Twin(p), entry[p*ps:(p+1)*ps]) {
				t.Fatalf("region %d: page %d's twin after its copy was kept is not the page at the region's entry", i, p)
			}
		}
		// Sequential code after the notice changes a kept page.
		if i%4 == 1 {
			if clean {
				if err := tr.(Injector).WillWrite(seqWritten*ps+9, 1); err != nil {
					t.Fatal(err)
				}
			}
			mem[seqWritten*ps+9]++
		}
	}
	for _, p := range []int{3, 5, 70, 71} {
		u.res.twin.spans(&holeCache{}, p, p+1, ps, func(lo, hi int, isData bool) {
			if isData || !u.ext.has(p) {
				t.Errorf("page %d, written by every region: external %v, its own twin page populated %v", p, u.ext.has(p), isData)
			}
		})
	}
}

// TestLazyFreshPagesNoTwins: on a writes-only tracker, pages a region
// writes for the first time (never populated before it) get no twin page:
// Twin reads their twins as zeros from the file's holes instead of
// populating them (a node that fills its share of an array in its first
// region held a page of zeros for each).
func TestLazyFreshPagesNoTwins(t *testing.T) {
	const pages = 8 * chunkPages
	ps := unix.Getpagesize()
	mem := mapArena(t, pages*ps) // untouched: nothing populated
	tr, err := NewLazy(mem, Options{}, LazyOptions{Missing: true})
	if errors.Is(err, ErrNotSupported) {
		testenv.Skip(t, "%v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	u := plainRegions(tr)
	tr.TwinWritesOnly()
	if err := tr.Start(len(mem)); err != nil {
		t.Fatal(err)
	}
	written := []int{3, 40, 41, 100}
	for _, p := range written {
		mem[p*ps+7] = 9
	}
	dirty, err := tr.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dirty, written) {
		t.Fatalf("dirty %v, want %v", dirty, written)
	}
	zero := make([]byte, ps)
	for _, p := range written {
		if !bytes.Equal(tr.Twin(p), zero) {
			t.Fatalf("page %d: its twin is not the zeros it held at Start", p)
		}
	}
	data := 0
	u.res.twin.spans(&holeCache{}, 0, pages, ps, func(lo, hi int, isData bool) {
		if isData {
			data += hi - lo
		}
	})
	if data != 0 {
		t.Fatalf("%d twin pages populated for pages written for the first time, want none", data)
	}
}
