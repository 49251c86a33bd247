//go:build linux

package monitor

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// A page overwritten whole between regions without Injector.WillWrite (as
// cape's homes transfer copies a pushed page over a present one), before
// Starts not proven clean, in every mode, on a plain and a lazy tracker:
// every twin the region needs is the page's content at Start, and every
// Stop reports exactly the pages the region changed, never the page
// overwritten between regions.
func TestUffdUnannouncedBetween(t *testing.T) {
	for _, m := range []struct {
		name string
		mode uffdMode
	}{
		{"adaptive", uffdModeAdaptive}, {"faults", uffdModeFaults}, {"compare", uffdModeCompare},
		{"mixed", uffdModePlain}, {"alternate", uffdModeAlternate}, {"snap", uffdModeSnap},
	} {
		for _, lazy := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/lazy=%v", m.name, lazy), func(t *testing.T) {
				c := newUnannouncedCase(t, m.mode, lazy)
				rng := rand.New(rand.NewPCG(1, 2))
				for k := range 200 {
					c.regionAfterPush(k, []int{5, 6, 40, 200}[rng.IntN(4)], false, rng)
				}
			})
		}
	}
}

// The same before a Start whose hint says the stretch is clean: the hint
// promises that only announced writes happened (Hint.Clean), and a mixed
// Start trusts it, comparing no hot chunk whose twins it knows current.
// A page overwritten unannounced there keeps its old twin, and the next
// Stop that compares it reports it written (the false conflict that the
// homes transfer met without WillWrite); announced, it is exact. So
// WillWrite is not only a cost hint before a clean Start (Injector).
func TestUffdCleanNeedsWillWrite(t *testing.T) {
	const hot = 6 // in the chunk of page 5, which every region writes
	for _, announce := range []bool{true, false} {
		t.Run(fmt.Sprintf("announce=%v", announce), func(t *testing.T) {
			c := newUnannouncedCase(t, uffdModePlain, false)
			for range 12 {
				c.hstart(Hint{})
				c.mem[5*c.ps+c.i]++
				c.mem[hot*c.ps+c.i]++
				c.stop()
			}
			c.hstart(Hint{}) // compares the chunk: its twins are current
			c.mem[5*c.ps+c.i]++
			c.stop()
			if c.state(hot/chunkPages) != chunkHot {
				t.Fatalf("chunk of page %d is %v, want hot", hot, c.state(hot/chunkPages))
			}
			if announce {
				if err := c.u.WillWrite(hot*c.ps, c.ps); err != nil {
					t.Fatal(err)
				}
			}
			pushed := bytes.Repeat([]byte{0xA5}, c.ps)
			copy(c.mem[hot*c.ps:], pushed)
			c.u.SetHint(Hint{Clean: true})
			if err := c.u.Start(len(c.mem)); err != nil {
				t.Fatal(err)
			}
			if got := bytes.Equal(c.u.Twin(hot), pushed); got != announce {
				t.Errorf("twin of page %d current at Start: %v, want %v", hot, got, announce)
			}
			c.mem[5*c.ps]++
			got, err := c.u.Stop()
			if err != nil {
				t.Fatal(err)
			}
			want := []int{5}
			if !announce {
				want = []int{5, hot}
			}
			if !slices.Equal(got, want) {
				t.Errorf("Stop = %v, want %v", got, want)
			}
		})
	}
}

// newUnannouncedCase is a mixedCase over a plain or lazy tracker (nothing
// absent) whose regions are tracked in mode, every page populated.
func newUnannouncedCase(t *testing.T, mode uffdMode, lazy bool) *mixedCase {
	c := newMixedCase(t)
	if lazy {
		mem := mapArena(t, 256*unix.Getpagesize())
		tr, err := lazyNothingAbsent(mode)(mem)
		if err != nil {
			t.Skipf("lazy tracker: %v", err)
		}
		t.Cleanup(func() { _ = tr.Close() })
		c.u, c.mem = trackerOf(tr), mem
	}
	c.u.mode = mode
	for p := range len(c.mem) / c.ps {
		c.mem[p*c.ps+1] = 1
	}
	return c
}

// regionAfterPush overwrites page pushed whole (from the 13th region on),
// unannounced, then runs a region, unbounded or bounded to one page,
// whose hint is clean if clean, writing one byte of each page it may
// write; hstart and stop check the twins and the Stop.
func (c *mixedCase) regionAfterPush(k, pushed int, clean bool, rng *rand.Rand) {
	c.t.Helper()
	h := Hint{Clean: clean && k > 12}
	if k > 12 {
		for i := range c.ps {
			c.mem[pushed*c.ps+i] = byte(k + i)
		}
	}
	if rng.IntN(3) > 0 {
		w := []int{5, pushed, 100}[rng.IntN(3)]
		h.Bounded, h.Writes = true, []Span{c.pageSpan(w, w+1)}
	}
	c.hstart(h)
	if h.Bounded {
		c.mem[h.Writes[0].Off+7+k%50]++
	} else {
		c.mem[5*c.ps+k%100]++
	}
	c.stop()
}
