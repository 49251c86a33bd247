//go:build unix

package monitor

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/cape-go/cape/internal/testenv"
)

// confArenaSize is the size of the arena each conformance case maps.
const confArenaSize = 4 << 20

// runConformance checks a backend against the exact set of pages written.
// newTracker returns a tracker of the backend under test watching mem.
func runConformance(t *testing.T, newTracker func(mem []byte) (Tracker, error)) {
	cases := []struct {
		name string
		run  func(c *confCase)
	}{
		{"RandomBytes", confRandomBytes},
		{"DenseRanges", confDenseRanges},
		{"Straddle", confStraddle},
		{"Threads", confThreads},
		{"OutsideRegion", confOutsideRegion},
		{"Injection", confInjection},
		{"ManyCycles", confManyCycles},
		{"ExtentChanges", confExtentChanges},
		{"KernelWrites", confKernelWrites},
		{"ZeroExtent", confZeroExtent},
		{"Lifecycle", confLifecycle},
		{"HintedSmall", confHintedSmall},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := mapArena(t, confArenaSize)
			tr, err := newTracker(mem)
			if errors.Is(err, ErrNotSupported) {
				testenv.Skip(t, "%v", err)
			}
			if err != nil {
				t.Fatalf("new tracker: %v", err)
			}
			c := &confCase{t: t, tr: tr, mem: mem, ps: tr.PageSize(), rng: rand.New(rand.NewPCG(1, uint64(len(tc.name))))}
			c.complete = tr.Name() == BackendComplete
			defer func() {
				if !c.closed {
					if err := tr.Close(); err != nil {
						t.Errorf("Close: %v", err)
					}
				}
			}()
			tc.run(c)
		})
	}
}

// confCase drives one tracker and remembers what the test wrote.
type confCase struct {
	t        *testing.T
	tr       Tracker
	mem      []byte
	ps       int
	rng      *rand.Rand
	complete bool
	closed   bool

	snap    []byte // memory at the last Start
	hint    *Hint  // the last Start's, if it bounds the writes: checkTwins checks only its pages
	extent  int
	inside  bool         // between start and stop
	written map[int]bool // pages written inside the region, below extent
}

func (c *confCase) pages() int { return len(c.mem) / c.ps }

func (c *confCase) start(extent int) { c.t.Helper(); c.startBounded(extent, nil) }

// startBounded starts a region over extent bytes whose writes, if bounds
// is not nil, the tracker was told are bounded to bounds.Writes: then
// checkTwins checks only the pages they meet.
func (c *confCase) startBounded(extent int, bounds *Hint) {
	c.t.Helper()
	c.hint = bounds
	c.snap = append(c.snap[:0], c.mem[:extent]...)
	if err := c.tr.Start(extent); err != nil {
		c.t.Fatalf("Start(%d): %v", extent, err)
	}
	c.extent, c.inside, c.written = extent, true, map[int]bool{}
	c.checkTwins()
}

// touch records that the byte range [off, off+n) was written.
func (c *confCase) touch(off, n int) {
	if !c.inside {
		return
	}
	for p := off / c.ps; p <= (off+n-1)/c.ps; p++ {
		if p*c.ps < c.extent {
			c.written[p] = true
		}
	}
}

// write changes every byte of [off, off+n).
func (c *confCase) write(off, n int) {
	for i := off; i < off+n; i++ {
		c.mem[i]++
	}
	c.touch(off, n)
}

func (c *confCase) stop() {
	c.t.Helper()
	got, err := c.tr.Stop()
	if err != nil {
		c.t.Fatalf("Stop: %v", err)
	}
	c.inside = false
	var want []int
	if c.complete {
		for p := range c.extent / c.ps {
			want = append(want, p)
		}
	} else {
		for p := range c.written {
			want = append(want, p)
		}
		slices.Sort(want)
	}
	if !slices.Equal(got, want) {
		c.t.Fatalf("Stop = %s, want %s", summary(got), summary(want))
	}
	c.checkTwins()
}

// checkTwins checks that every twin holds the memory as of the last Start.
func (c *confCase) checkTwins() {
	c.t.Helper()
	n := c.extent / c.ps
	for p := range n {
		if c.hint != nil && !meets(c.hint.Writes, p*c.ps, (p+1)*c.ps) {
			continue // a bounded region needs the twins of its bounds only
		}
		if tw := c.tr.Twin(p); !bytes.Equal(tw, c.snap[p*c.ps:(p+1)*c.ps]) {
			c.t.Fatalf("Twin(%d) differs from the page's content at Start (len %d)", p, len(tw))
		}
	}
	if tw := c.tr.Twin(n); tw != nil {
		c.t.Fatalf("Twin(%d) past the extent = %d bytes, want nil", n, len(tw))
	}
	if tw := c.tr.Twin(-1); tw != nil {
		c.t.Fatalf("Twin(-1) = %d bytes, want nil", len(tw))
	}
}

func summary(p []int) string {
	const show = 12
	s := "["
	for i, v := range p {
		if i == show {
			s += " ..."
			break
		}
		if i > 0 {
			s += " "
		}
		s += itoa(v)
	}
	return s + "] (" + itoa(len(p)) + " pages)"
}

func itoa(v int) string { return strconv.Itoa(v) }

func confRandomBytes(c *confCase) {
	for range 40 {
		c.start(len(c.mem))
		for range 1 + c.rng.IntN(64) {
			c.write(c.rng.IntN(len(c.mem)), 1)
		}
		c.stop()
	}
}

func confDenseRanges(c *confCase) {
	for range 20 {
		c.start(len(c.mem))
		for range 1 + c.rng.IntN(4) {
			n := 1 + c.rng.IntN(64*c.ps)
			off := c.rng.IntN(len(c.mem) - n)
			c.write(off, n)
		}
		c.stop()
	}
	// Every page.
	c.start(len(c.mem))
	c.write(0, len(c.mem))
	c.stop()
}

func confStraddle(c *confCase) {
	for _, n := range []int{2, 8} {
		c.start(len(c.mem))
		for p := 1; p < c.pages(); p += 7 {
			off := p*c.ps - n/2
			if n == 8 {
				v := binary.LittleEndian.Uint64(c.mem[off:])
				binary.LittleEndian.PutUint64(c.mem[off:], ^v) // one unaligned store
				c.touch(off, 8)
			} else {
				c.write(off, n)
			}
		}
		c.stop()
	}
	// The last byte of one page and the first of the next, separately.
	c.start(len(c.mem))
	c.write(5*c.ps-1, 1)
	c.write(9*c.ps, 1)
	c.stop()
}

func confThreads(c *confCase) {
	const writers = 8
	for cycle := range 6 {
		c.start(len(c.mem))
		var wg sync.WaitGroup
		var mu sync.Mutex
		for g := range writers {
			wg.Go(func() {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				rng := rand.New(rand.NewPCG(uint64(cycle), uint64(g)))
				var mine []int
				for range 200 {
					// Byte g of a random page: writers share pages, never bytes.
					p := rng.IntN(c.pages())
					c.mem[p*c.ps+g]++
					mine = append(mine, p)
					if rng.IntN(8) == 0 {
						runtime.Gosched()
					}
				}
				mu.Lock()
				for _, p := range mine {
					c.touch(p*c.ps+g, 1)
				}
				mu.Unlock()
			})
		}
		wg.Wait()
		c.stop()
	}
}

func confOutsideRegion(c *confCase) {
	c.write(3*c.ps, 10) // before the first Start
	c.start(len(c.mem))
	c.write(100*c.ps, 1)
	c.stop()
	c.write(200*c.ps, c.ps) // after Stop
	c.write(100*c.ps, 1)    // again, on a page the region wrote
	c.start(len(c.mem))
	c.stop() // nothing written inside
	c.start(len(c.mem))
	c.write(200*c.ps+5, 1)
	c.stop()
}

func confInjection(c *confCase) {
	for range 10 {
		c.start(len(c.mem))
		for range 20 {
			c.write(c.rng.IntN(len(c.mem)), 1)
		}
		c.stop()
		// Injected bytes: from the network, on pages this node may or may not
		// have written. The next Start must make them the twins' content.
		for range 30 {
			n := 1 + c.rng.IntN(3*c.ps)
			c.write(c.rng.IntN(len(c.mem)-n), n)
		}
	}
	c.start(len(c.mem))
	c.stop()
}

func confManyCycles(c *confCase) {
	for range 300 {
		c.start(len(c.mem))
		for range c.rng.IntN(5) {
			c.write(c.rng.IntN(len(c.mem)), 1)
		}
		c.stop()
		for range c.rng.IntN(3) {
			c.write(c.rng.IntN(len(c.mem)), 1)
		}
	}
}

func confExtentChanges(c *confCase) {
	mib := 1 << 20
	for _, extent := range []int{mib, 3 * mib, 2 * mib, 0, 4 * mib, c.ps, 4 * mib} {
		// Writes everywhere between regions, past the extent too.
		for range 20 {
			c.write(c.rng.IntN(len(c.mem)), 1)
		}
		c.start(extent)
		// Writes everywhere in the region; only those below extent count.
		for range 40 {
			c.write(c.rng.IntN(len(c.mem)), 1)
		}
		c.write(len(c.mem)-c.ps, c.ps)
		c.stop()
	}
}

func confKernelWrites(c *confCase) {
	if c.tr.Name() == BackendPtrace {
		c.t.Skip("ptrace: the kernel cannot write into the write-protected arena (read(2) fails with EFAULT); known limitation")
	}
	r, w, err := os.Pipe()
	if err != nil {
		c.t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	c.start(len(c.mem))
	off, n := 40*c.ps-100, 300
	msg := make([]byte, n)
	copy(msg, c.mem[off:off+n])
	for i := range msg {
		msg[i]++
	}
	if _, err := w.Write(msg); err != nil {
		c.t.Fatal(err)
	}
	// read(2) writes into the arena from the kernel, as a socket read would.
	if _, err := r.Read(c.mem[off : off+n]); err != nil {
		c.t.Fatal(err)
	}
	c.touch(off, n)
	c.stop()
}

func confZeroExtent(c *confCase) {
	c.start(0)
	c.write(0, 1)
	c.stop()
	c.start(len(c.mem))
	c.write(0, 1)
	c.stop()
}

func confLifecycle(c *confCase) {
	tr := c.tr
	if _, err := tr.Stop(); !errors.Is(err, ErrState) {
		c.t.Errorf("Stop before Start: %v, want ErrState", err)
	}
	for _, bad := range []int{-c.ps, 1, c.ps + 1, len(c.mem) + c.ps} {
		if err := tr.Start(bad); !errors.Is(err, ErrInvalidExtent) {
			c.t.Errorf("Start(%d): %v, want ErrInvalidExtent", bad, err)
		}
	}
	c.start(len(c.mem))
	if err := tr.Start(len(c.mem)); !errors.Is(err, ErrState) {
		c.t.Errorf("Start twice: %v, want ErrState", err)
	}
	c.write(7, 1)
	c.stop()
	if tr.PageSize() != os.Getpagesize() {
		c.t.Errorf("PageSize = %d, want %d", tr.PageSize(), os.Getpagesize())
	}
	if err := tr.Close(); err != nil {
		c.t.Fatalf("Close: %v", err)
	}
	c.closed = true
	if err := tr.Close(); err != nil {
		c.t.Errorf("second Close: %v", err)
	}
	if err := tr.Start(len(c.mem)); !errors.Is(err, ErrClosed) {
		c.t.Errorf("Start after Close: %v, want ErrClosed", err)
	}
	if _, err := tr.Stop(); !errors.Is(err, ErrClosed) {
		c.t.Errorf("Stop after Close: %v, want ErrClosed", err)
	}
	if tw := tr.Twin(0); tw != nil {
		c.t.Errorf("Twin after Close = %d bytes, want nil", len(tw))
	}
	// The memory stays usable.
	for i := 0; i < len(c.mem); i += c.ps {
		c.mem[i]++
	}
}

// meets reports whether a span of ws meets the bytes [lo, hi).
func meets(ws []Span, lo, hi int) bool {
	for _, w := range ws {
		if w.Len > 0 && w.Off < hi && lo < w.Off+w.Len {
			return true
		}
	}
	return false
}

// startHinted gives a Hinter h and starts a region over extent bytes; on
// other trackers it is start.
func (c *confCase) startHinted(extent int, h Hint) {
	c.t.Helper()
	ht, ok := c.tr.(Hinter)
	if !ok {
		c.start(extent)
		return
	}
	ht.SetHint(h)
	var bounds *Hint
	if h.Bounded {
		bounds = &h
	}
	c.startBounded(extent, bounds)
}

// Regions whose hints bound their writes to a few short spans (one to
// four pages, some straddling a page boundary), as cape.WritesIn gives
// for the short vectors of an iterative solver, most of them the same
// spans region after region; now and then a region with no bounds or one
// that writes nothing; between regions, writes anywhere, announced
// (Injector) or not, except before a region whose hint says the stretch
// is clean, where only announced ones. Stop reports exactly the pages
// written, and the twins of the pages the bounds meet are their content
// at Start.
func confHintedSmall(c *confCase) {
	ps := c.ps
	hot := []Span{{Off: 3 * ps, Len: ps}, {Off: 40*ps - 100, Len: 200}, {Off: 300 * ps, Len: 4 * ps}}
	inj, _ := c.tr.(Injector)
	for k := range 400 {
		clean := k > 0 && c.rng.IntN(3) == 0
		for range c.rng.IntN(3) {
			off := c.rng.IntN(len(c.mem) - 2*ps)
			n := 1 + c.rng.IntN(2*ps)
			switch {
			case inj != nil && (clean || c.rng.IntN(2) == 0):
				if err := inj.WillWrite(off, n); err != nil {
					c.t.Fatal(err)
				}
			case clean:
				continue
			}
			c.write(off, n)
		}
		if k%9 == 8 {
			c.startHinted(len(c.mem), Hint{Clean: clean})
			c.write(c.rng.IntN(len(c.mem)), 1)
			c.stop()
			continue
		}
		h := Hint{Bounded: true, Clean: clean}
		if c.rng.IntN(4) == 0 {
			off := c.rng.IntN(len(c.mem) - 4*ps)
			h.Writes = []Span{{Off: off, Len: 1 + c.rng.IntN(4*ps)}}
		} else {
			h.Writes = hot[:1+c.rng.IntN(len(hot))]
		}
		c.startHinted(len(c.mem), h)
		for _, w := range h.Writes {
			if c.rng.IntN(5) == 0 {
				continue
			}
			for range 1 + c.rng.IntN(3) {
				c.write(w.Off+c.rng.IntN(w.Len), 1)
			}
		}
		c.stop()
	}
}
