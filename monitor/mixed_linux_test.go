//go:build linux

package monitor

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// mixedCase drives a uffd tracker forced to mixed (plain) regions over
// 256 pages (16 chunks) and checks every Stop and twin.
type mixedCase struct {
	t    *testing.T
	u    *uffdTracker
	mem  []byte
	ps   int
	snap []byte
	i    int // regions started
}

// bareAllowed: an adaptive tracker may find a bare region the cheapest
// (its cost model reads the clock); the plain and alternating modes never
// run one.
func (c *mixedCase) bareAllowed() bool { return c.u.mode == uffdModeAdaptive }

func newMixedCase(t *testing.T) *mixedCase {
	mem := mapArena(t, 256*unix.Getpagesize())
	tr := newOrSkip(t, BackendUffd, mem)
	u := tr.(*uffdTracker)
	u.mode = uffdModePlain
	return &mixedCase{t: t, u: u, mem: mem, ps: u.pageSize}
}

func (c *mixedCase) start() {
	c.t.Helper()
	c.snap = append(c.snap[:0], c.mem...)
	if err := c.u.Start(len(c.mem)); err != nil {
		c.t.Fatal(err)
	}
	if c.u.bare && !c.bareAllowed() {
		c.t.Fatalf("region %d is bare", c.i)
	}
	c.i++
	for p := range len(c.mem) / c.ps {
		if !bytes.Equal(c.u.Twin(p), c.snap[p*c.ps:(p+1)*c.ps]) {
			c.t.Fatalf("region %d: twin of page %d (chunk %v) is not its content at Start", c.i, p, c.u.chunks[p/chunkPages])
		}
	}
}

// stop checks that Stop reports exactly the pages that changed since Start
// (every write of these tests changes its byte), and returns a copy of
// them.
func (c *mixedCase) stop() []int { c.t.Helper(); return c.stopAgainst(c.mem, c.snap) }

// stopAgainst is stop where now is what the memory holds and before what
// it held at Start.
func (c *mixedCase) stopAgainst(now, before []byte) []int {
	c.t.Helper()
	got, err := c.u.Stop()
	if err != nil {
		c.t.Fatal(err)
	}
	var want []int
	for p := range len(now) / c.ps {
		if !bytes.Equal(now[p*c.ps:(p+1)*c.ps], before[p*c.ps:(p+1)*c.ps]) {
			want = append(want, p)
		}
	}
	if !slices.Equal(got, want) {
		c.t.Fatalf("region %d: Stop = %v, want %v", c.i, got, want)
	}
	return slices.Clone(got)
}

// region runs one region writing the given pages.
func (c *mixedCase) region(pages ...int) {
	c.t.Helper()
	c.start()
	for _, p := range pages {
		c.mem[p*c.ps+c.i%c.ps]++
	}
	c.stop()
}

func (c *mixedCase) state(ch int) chunkState { return c.u.chunks[ch].state }

// protected reports whether page p is write-protected now (outside a
// region): PAGEMAP_SCAN does not report it written.
func (c *mixedCase) protected(p int) bool {
	c.t.Helper()
	written := false
	if err := c.u.scan(p*c.ps, (p+1)*c.ps, false, func(int, int) { written = true }); err != nil {
		c.t.Fatal(err)
	}
	return !written
}

// A chunk nobody writes is probed after waitFirst idle Starts and armed
// after as many more; a chunk written every region stays hot. A page of a
// cold chunk written in a region is reported with its twin and wakes the
// chunk, whose next wait is longer; one written between regions is not
// reported, its twin is refreshed, and it wakes the chunk too; a probe
// page written wakes its chunk with a longer wait still.
func TestUffdMixedStates(t *testing.T) {
	c := newMixedCase(t)
	// Chunks 4 and 6, written too, keep chunk 5 from idling with its
	// neighbours (which would share its probe: TestUffdMixedGroupProbe).
	const busy, idle = 0, 5 // chunks
	page := func(ch, i int) int { return ch*chunkPages + i }
	busyPages := []int{page(busy, 3), page(4, 1), page(6, 1)}
	for range waitFirst {
		c.region(busyPages...)
	}
	if c.state(idle) != chunkHot {
		t.Fatalf("chunk %d after %d idle regions: %v, want hot", idle, waitFirst-1, c.state(idle))
	}
	c.region(busyPages...)
	if c.state(idle) != chunkProbing || !c.protected(probePage(idle)) || c.protected(page(idle, 0)) {
		t.Fatalf("chunk %d after %d idle Starts: %v, want probing with only its probe page protected", idle, waitFirst, c.state(idle))
	}
	for range waitFirst {
		c.region(busyPages...)
	}
	if c.state(idle) != chunkCold || c.state(busy) != chunkHot {
		t.Fatalf("after %d idle Starts: chunks %v, %v; want cold, hot", 2*waitFirst, c.state(idle), c.state(busy))
	}
	for i := range chunkPages {
		if !c.protected(page(idle, i)) {
			t.Fatalf("page %d of cold chunk %d is not protected", i, idle)
		}
	}
	// Written in a region: reported, then the chunk wakes.
	c.region(append(busyPages, page(idle, 2))...)
	c.start()
	if c.state(idle) != chunkHot || c.u.chunks[idle].waitFor() != backoffCold*waitFirst || c.protected(page(idle, 9)) {
		t.Fatalf("cold chunk written in a region: %+v, want hot and unprotected with wait %d", c.u.chunks[idle], backoffCold*waitFirst)
	}
	c.stop()
	// Cold again, then written between regions.
	for c.state(idle) != chunkCold {
		if c.i > 100 {
			t.Fatalf("chunk %d not cold after 100 regions", idle)
		}
		c.region(busyPages...)
	}
	c.mem[page(idle, 7)*c.ps]++
	c.region(busyPages...) // checks the twin and that page is not reported
	if c.state(idle) != chunkHot {
		t.Fatalf("cold chunk written between regions: %v, want hot", c.state(idle))
	}
	// Probing, then the probe page written in a region.
	for c.state(idle) != chunkProbing {
		c.region(busyPages...)
	}
	w := c.u.chunks[idle].waitFor()
	c.region(probePage(idle))
	c.start()
	if c.state(idle) != chunkHot || c.u.chunks[idle].waitFor() != min(backoffProbe*w, waitMax) {
		t.Fatalf("probe page written: %+v, want hot with wait %d", c.u.chunks[idle], backoffProbe*w)
	}
	c.stop()
	// Probing, then another page of the chunk changed: back to hot and
	// the probe page unprotected.
	for c.state(idle) != chunkProbing {
		c.region(busyPages...)
	}
	c.region(page(idle, 1))
	c.start()
	if c.state(idle) != chunkHot || c.protected(probePage(idle)) {
		t.Fatalf("probing chunk changed: %v (probe page protected %v), want hot, unprotected", c.state(idle), c.protected(probePage(idle)))
	}
	c.stop()
}

// Consecutive chunks that idle together share one probe, their first
// chunk's. Rewritten with their own bytes, they back off with it when its
// probe page is written; a follower that changes leaves the group; left
// alone, the leader is armed with its followers, up to one that left;
// those after it form a group of their own, probed and armed in turn.
func TestUffdMixedGroupProbe(t *testing.T) {
	c := newMixedCase(t)
	const first, last, changer = 1, 12, 9 // chunks
	// Chunks 13 to 15 are idle too, their probe pages never touched: each
	// is probed alone, which costs nothing.
	for ch := last + 1; ch < 16; ch++ {
		c.mem[ch*chunkPages*c.ps] = 1
	}
	rewrite := true
	write := func(extra ...int) {
		t.Helper()
		c.mem[c.i%c.ps]++ // chunk 0 stays busy
		for p := first * chunkPages; rewrite && p < (last+1)*chunkPages; p++ {
			rewriteWord(c.mem, p*c.ps)
		}
		for _, p := range extra {
			c.mem[p*c.ps+c.i%c.ps]++
		}
		c.stop()
	}
	region := func(extra ...int) { t.Helper(); c.start(); write(extra...) }
	protectedIn := func(ch int) (n int) {
		for p := ch * chunkPages; p < (ch+1)*chunkPages; p++ {
			if c.protected(p) {
				n++
			}
		}
		return n
	}
	for range waitFirst {
		region()
	}
	// One probe for the twelve. (c.start would read chunks 13 to 15's
	// probe pages: they are dropped after the snapshot, zero as before.)
	c.snap = append(c.snap[:0], c.mem...)
	for ch := last + 1; ch < 16; ch++ {
		p := probePage(ch)
		if err := unix.Madvise(c.mem[p*c.ps:(p+1)*c.ps], unix.MADV_DONTNEED); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.u.Start(len(c.mem)); err != nil {
		t.Fatal(err)
	}
	c.i++
	if c.state(first) != chunkProbing || protectedIn(first) != 1 || !c.protected(probePage(first)) {
		t.Fatalf("leader: %+v, %d pages protected; want probing, its probe page alone protected", c.u.chunks[first], protectedIn(first))
	}
	for ch := first + 1; ch <= last; ch++ {
		if k := c.u.chunks[ch]; k.state != chunkHot || k.lead != first+1 || protectedIn(ch) != 0 {
			t.Fatalf("chunk %d: %+v, %d pages protected; want hot, following chunk %d, unprotected", ch, k, protectedIn(ch), first)
		}
	}
	if k := c.u.chunks[first]; k.group != last-first {
		t.Fatalf("leader: %+v, want a group of %d", k, last-first)
	}
	for ch := last + 1; ch < 16; ch++ {
		if k := c.u.chunks[ch]; k.state != chunkProbing || k.lead != 0 || k.group != 0 || protectedIn(ch) != 0 {
			t.Fatalf("chunk %d, probe page untouched: %+v, %d pages protected; want probing alone, nothing protected", ch, k, protectedIn(ch))
		}
	}
	// The leader's probe page, rewritten, backs off the others with it.
	write()
	c.start()
	for ch := first; ch <= last; ch++ {
		if k := c.u.chunks[ch]; k.state != chunkHot || k.lead != 0 || k.waitFor() != backoffProbe*waitFirst {
			t.Fatalf("chunk %d after the probe page was written: %+v, want hot, in no group, wait %d", ch, k, backoffProbe*waitFirst)
		}
	}
	write()
	// Left alone, they are probed together again; a follower that
	// changes leaves the group.
	rewrite = false
	for c.start(); c.state(first) != chunkProbing; c.start() {
		if c.i > 100 {
			t.Fatal("no probe after 100 regions")
		}
		write()
	}
	write(changer*chunkPages + 2)
	c.start()
	if c.u.chunks[changer].lead != 0 || c.u.chunks[changer+1].lead != first+1 {
		t.Fatalf("chunk %d changed: %+v, chunk %d %+v; want the first alone out of the group", changer, c.u.chunks[changer], changer+1, c.u.chunks[changer+1])
	}
	write()
	// The leader is armed with its followers up to the one that left;
	// those after it are then probed again, as a group, and armed.
	leaderCold := false
	for r := 0; ; r++ {
		if r > 200 {
			t.Fatalf("not all cold after %d idle regions: %+v", r, c.u.chunks)
		}
		c.start()
		if c.state(first) == chunkCold && !leaderCold {
			leaderCold = true
			for ch := first + 1; ch < changer; ch++ {
				if c.state(ch) != chunkCold || protectedIn(ch) != chunkPages {
					t.Fatalf("leader armed; chunk %d: %+v, want armed with it", ch, c.u.chunks[ch])
				}
			}
			// (Chunks past last, idle too by now, may join it.)
			if k := c.u.chunks[changer+1]; k.state != chunkProbing || int(k.group) < last-changer-1 || protectedIn(changer+1) != 1 {
				t.Fatalf("leader armed; chunk %d, after the one that left: %+v, want leading a new group of at least %d", changer+1, k, last-changer-1)
			}
			for ch := changer + 2; ch <= last; ch++ {
				if k := c.u.chunks[ch]; k.state != chunkHot || k.lead != changer+2 || protectedIn(ch) != 0 {
					t.Fatalf("leader armed; chunk %d: %+v, want following chunk %d", ch, k, changer+1)
				}
			}
		}
		cold := true
		for ch := first; ch <= last; ch++ {
			cold = cold && c.state(ch) == chunkCold && protectedIn(ch) == chunkPages
		}
		write()
		if cold {
			break
		}
	}
}

// WillWrite unprotects the pages about to be injected, with their chunk,
// which turns hot; the injected bytes are not reported by the next Stop
// and are in the next twins. After a faults region it unprotects only the
// pages written. It refuses to run inside a region, after Close, and
// outside the memory.
func TestUffdWillWrite(t *testing.T) {
	c := newMixedCase(t)
	const cold = 9
	c.region(0)
	for c.state(cold) != chunkCold {
		c.region(0)
	}
	off := (cold*chunkPages+3)*c.ps - 5 // straddles pages 2 and 3 of the chunk
	if err := c.u.WillWrite(off, 10); err != nil {
		t.Fatal(err)
	}
	if c.state(cold) != chunkHot {
		t.Fatalf("chunk %d after WillWrite: %v, want hot", cold, c.state(cold))
	}
	for i := range chunkPages {
		if c.protected(cold*chunkPages + i) {
			t.Fatalf("page %d of the chunk still protected after WillWrite", i)
		}
	}
	for i := off; i < off+10; i++ {
		c.mem[i]++
	}
	c.region(0) // the injected pages are not reported, their twins are current

	// After a faults region: only the pages of the span.
	c.u.mode = uffdModeFaults
	c.region(0)
	p := 12*chunkPages + 1
	if !c.protected(p) || !c.protected(p+1) {
		t.Fatalf("pages %d, %d not protected after a faults region", p, p+1)
	}
	if err := c.u.WillWrite(p*c.ps, 1); err != nil {
		t.Fatal(err)
	}
	if c.protected(p) || !c.protected(p+1) {
		t.Fatalf("after WillWrite of page %d: protected %v, %v; want false, true", p, c.protected(p), c.protected(p+1))
	}
	c.mem[p*c.ps]++
	c.region(0)

	if err := c.u.WillWrite(len(c.mem)-c.ps, c.ps+1); err == nil {
		t.Errorf("WillWrite past the memory: no error")
	}
	if err := c.u.WillWrite(-1, 2); err == nil {
		t.Errorf("WillWrite before the memory: no error")
	}
	if err := c.u.Start(len(c.mem)); err != nil {
		t.Fatal(err)
	}
	if err := c.u.WillWrite(0, 1); !errors.Is(err, ErrState) {
		t.Errorf("WillWrite inside a region: %v, want ErrState", err)
	}
	if _, err := c.u.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := c.u.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.u.WillWrite(0, 1); !errors.Is(err, ErrClosed) {
		t.Errorf("WillWrite after Close: %v, want ErrClosed", err)
	}
}

// Kinds change under mixed regions without losing a write: regions
// alternate between faults, compared and mixed while some chunks are
// cold, some hot, and pages are written in and between regions.
func TestUffdMixedTransitions(t *testing.T) {
	c := newMixedCase(t)
	for i := range 120 {
		switch {
		case i >= 40 && i%10 == 3:
			c.u.mode = uffdModeFaults
		case i >= 40 && i%10 == 6:
			c.u.mode = uffdModeCompare
		default:
			c.u.mode = uffdModePlain
		}
		c.region(0, 17, (i*37)%256)
		c.mem[((i*53)%256)*c.ps+1]++ // between regions
		if i%7 == 0 {
			if err := c.u.WillWrite(((i*11)%256)*c.ps, 3*c.ps); err != nil {
				t.Fatal(err)
			}
			for p := (i * 11) % 256; p < min((i*11)%256+3, 256); p++ {
				c.mem[p*c.ps+2]++
			}
		}
	}
	cold := 0
	for _, ch := range c.u.chunks {
		if ch.state == chunkCold {
			cold++
		}
	}
	if cold == 0 {
		t.Errorf("no chunk cold at the end: the mixed regions were not exercised")
	}
}
