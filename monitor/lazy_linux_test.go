//go:build linux

package monitor

import (
	"bytes"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cape-go/cape/internal/testenv"
	"github.com/cape-go/cape/internal/uffd"
	"golang.org/x/sys/unix"
)

// The conformance suite on a lazy tracker whose memory is populated first
// (nothing is invalidated, so no fault needs a helper): with missing-page
// registration and twins in a memory file, it must track as uffd does.
func TestLazyConformance(t *testing.T) {
	runConformance(t, func(mem []byte) (Tracker, error) {
		for i := 0; i < len(mem); i += unix.Getpagesize() {
			mem[i] = 0
		}
		return NewLazy(mem, Options{}, LazyOptions{Missing: true})
	})
}

// faultRecorder resolves the missing faults of a lazy tracker's memory in a
// goroutine (a test only: a node uses a helper process) with pages of fill,
// and records which pages faulted.
type faultRecorder struct {
	mu      sync.Mutex
	faulted []int
	stop    atomic.Bool
	done    chan struct{}
}

func recordFaults(t *testing.T, fd int, mem []byte, fill byte) *faultRecorder {
	ps := unix.Getpagesize()
	base := uint64(addrOf(mem))
	page := bytes.Repeat([]byte{fill}, ps)
	r := &faultRecorder{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		msgs := make([]uffd.Msg, 8)
		for !r.stop.Load() {
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			if _, err := unix.Poll(fds, 20); err != nil && !errors.Is(err, unix.EINTR) {
				t.Errorf("poll: %v", err)
				return
			}
			n, err := uffd.ReadMsgs(fd, msgs)
			if errors.Is(err, unix.EAGAIN) {
				continue
			}
			if err != nil {
				t.Errorf("read faults: %v", err)
				return
			}
			for _, m := range msgs[:n] {
				p := int((m.Address - base) / uint64(ps))
				r.mu.Lock()
				r.faulted = append(r.faulted, p)
				r.mu.Unlock()
				if _, err := uffd.Copy(fd, base+uint64(p*ps), page, uffd.CopyModeWP); err != nil && !errors.Is(err, unix.EEXIST) {
					t.Errorf("resolve page %d: %v", p, err)
				}
			}
		}
	}()
	t.Cleanup(func() { r.stop.Store(true); <-r.done })
	return r
}

func (r *faultRecorder) pages() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.faulted)
}

// newLazyRecorded maps an arena of the given pages (page p's first byte
// p+1) under a lazy tracker whose missing pages are filled with 0xEE and
// recorded; absent is the set its SetAbsent consults.
func newLazyRecorded(t *testing.T, pages int) ([]byte, Lazy, map[int]bool, *faultRecorder) {
	t.Helper()
	return newLazyRecordedWith(t, pages, LazyOptions{Missing: true})
}

// newLazyRecordedWith is newLazyRecorded with the tracker's options lo.
func newLazyRecordedWith(t *testing.T, pages int, lo LazyOptions) ([]byte, Lazy, map[int]bool, *faultRecorder) {
	t.Helper()
	ps := unix.Getpagesize()
	mem := mapArena(t, pages*ps)
	for p := range pages {
		mem[p*ps] = byte(p + 1)
	}
	tr, err := NewLazy(mem, Options{}, lo)
	if errors.Is(err, ErrNotSupported) {
		testenv.Skip(t, "%v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // after the fault recorder's (cleanups run last first)
		if err := tr.Close(); err != nil {
			t.Error(err)
		}
	})
	absent := map[int]bool{}
	tr.SetAbsent(func(p int) bool { return absent[p] })
	return mem, tr, absent, recordFaults(t, tr.UffdFD(), mem, 0xEE)
}

// plainRegions forces tr's regions to be mixed (plain) and returns its
// uffd tracker.
func plainRegions(tr Lazy) *uffdTracker {
	u := tr.(*lazyTracker).uffdTracker
	u.mode = uffdModePlain
	return u
}

// Invalidated pages fault as missing at their next access and are not
// reported written; while absent, no kind of region (faults, compared,
// plain) reads them; an installed page reads as installed, and installing
// over a present page changes nothing.
func TestLazyInvalidateInstall(t *testing.T) {
	const pages = 8
	ps := unix.Getpagesize()
	mem, tr, absent, rec := newLazyRecorded(t, pages)
	tr.(*lazyTracker).mode = uffdModeAlternate

	for region := range 6 {
		if err := tr.Start(len(mem)); err != nil {
			t.Fatal(err)
		}
		mem[0*ps+9] = byte(region + 10)
		mem[5*ps+9] = byte(region + 20)
		dirty, err := tr.Stop()
		if err != nil {
			t.Fatal(err)
		}
		if want := []int{0, 5}; !slices.Equal(dirty, want) {
			t.Errorf("region %d (kind %d): dirty %v, want %v", region, tr.(*lazyTracker).kind, dirty, want)
		}
		if region == 0 {
			absent[2], absent[3] = true, true
			if err := tr.Invalidate([]int{2, 3}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if f := rec.pages(); len(f) != 0 {
		t.Fatalf("the tracker read absent pages: faults on %v", f)
	}
	content := bytes.Repeat([]byte{0x42}, ps)
	if ok, err := tr.Install(2, content); !ok || err != nil {
		t.Fatalf("Install on an invalidated page: %v, %v", ok, err)
	}
	absent[2] = false
	if ok, err := tr.Install(2, bytes.Repeat([]byte{1}, ps)); ok || err != nil {
		t.Errorf("Install on a present page: %v, %v; want false, nil", ok, err)
	}
	if !bytes.Equal(mem[2*ps:3*ps], content) {
		t.Errorf("page 2 does not hold what was installed")
	}
	if err := tr.Start(len(mem)); err != nil {
		t.Fatal(err)
	}
	if got := tr.Twin(2); !bytes.Equal(got, content) {
		t.Errorf("the twin of an installed page was not refreshed by Start")
	}
	dirty, err := tr.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if len(dirty) != 0 {
		t.Errorf("dirty %v after a region that wrote nothing", dirty)
	}
	if got := mem[3*ps+7]; got != 0xEE {
		t.Errorf("an invalidated page read %#x, want the fault handler's %#x", got, 0xEE)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(rec.pages()) == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if f := rec.pages(); !slices.Equal(f, []int{3}) {
		t.Errorf("faults on %v, want [3]", f)
	}
}

// In mixed regions, invalidated pages of hot and of cold chunks are never
// read by the tracker (no comparison, no copy), WillWrite leaves them
// protected (so that they keep reading as not written), and an installed
// page of a cold chunk wakes the chunk, its twin refreshed by the next
// Start; every Stop reports exactly the pages the region changed.
func TestLazyMixed(t *testing.T) {
	const pages = 4 * chunkPages
	ps := unix.Getpagesize()
	mem, tr, absent, rec := newLazyRecorded(t, pages)
	u := plainRegions(tr)
	const hotPage, coldPage = 5, 2*chunkPages + 3 // chunk 0 is written every region, chunk 2 never
	region := func(i int) {
		t.Helper()
		if err := tr.Start(len(mem)); err != nil {
			t.Fatal(err)
		}
		mem[0*ps+9] = byte(i + 10)
		dirty, err := tr.Stop()
		if err != nil {
			t.Fatal(err)
		}
		if want := []int{0}; !slices.Equal(dirty, want) {
			t.Fatalf("region %d: dirty %v, want %v", i, dirty, want)
		}
	}
	i := 0
	for ; u.chunks == nil || u.chunks[2].state != chunkCold; i++ {
		region(i)
	}
	absent[hotPage], absent[coldPage] = true, true
	if err := tr.Invalidate([]int{hotPage, coldPage}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		region(i)
		i++
		for _, p := range []int{hotPage, coldPage} {
			if err := u.WillWrite(p*ps, ps); err != nil {
				t.Fatal(err)
			}
		}
	}
	if f := rec.pages(); len(f) != 0 {
		t.Fatalf("the tracker read absent pages: faults on %v", f)
	}
	written := 0
	if err := u.scan(coldPage*ps, (coldPage+1)*ps, false, func(lo, hi int) { written += hi - lo }); err != nil {
		t.Fatal(err)
	}
	if written != 0 {
		t.Errorf("invalidated page %d reads as written after WillWrite", coldPage)
	}
	content := bytes.Repeat([]byte{0x42}, ps)
	if ok, err := tr.Install(coldPage, content); !ok || err != nil {
		t.Fatalf("Install on an invalidated page: %v, %v", ok, err)
	}
	absent[coldPage] = false
	if err := tr.Start(len(mem)); err != nil {
		t.Fatal(err)
	}
	if got := tr.Twin(coldPage); !bytes.Equal(got, content) {
		t.Errorf("the twin of an installed page was not refreshed by Start")
	}
	if st := u.chunks[coldPage/chunkPages].state; st != chunkHot {
		t.Errorf("chunk of the installed page: %v, want hot", st)
	}
	mem[coldPage*ps+1] = 7
	dirty, err := tr.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{coldPage}; !slices.Equal(dirty, want) {
		t.Errorf("dirty %v, want %v", dirty, want)
	}
	if f := rec.pages(); len(f) != 0 {
		t.Errorf("the tracker read absent pages: faults on %v", f)
	}
}

// Before the first Invalidate, a lazy tracker's first touches are the
// kernel's zero fills: no fault reaches the userfaultfd, so a node needs
// no helper running until pages are invalidated. From that Invalidate on,
// a page not in memory faults as missing, invalidated or never touched.
func TestLazyMissingRegisteredAtFirstInvalidate(t *testing.T) {
	const pages = 8
	ps := unix.Getpagesize()
	mem := mapArena(t, pages*ps)
	tr, err := NewLazy(mem, Options{}, LazyOptions{Missing: true})
	if errors.Is(err, ErrNotSupported) {
		testenv.Skip(t, "%v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // after the fault recorder's, which reads its descriptor
		if err := tr.Close(); err != nil {
			t.Error(err)
		}
	})
	// No reader of the userfaultfd yet: a fault would wait for ever, so
	// touch in a goroutine and give up after a while.
	touched := make(chan struct{})
	go func() {
		mem[1*ps] = 7 // write, never touched
		_ = mem[2*ps] // read, never touched
		close(touched)
	}()
	select {
	case <-touched:
	case <-time.After(10 * time.Second):
		t.Fatal("a first touch before any Invalidate waited for a fault handler")
	}
	if mem[1*ps] != 7 || mem[2*ps] != 0 {
		t.Fatalf("pages 1, 2 read %d, %d; want 7, 0", mem[1*ps], mem[2*ps])
	}
	rec := recordFaults(t, tr.UffdFD(), mem, 0xEE)
	if err := tr.Invalidate([]int{1}); err != nil {
		t.Fatal(err)
	}
	if got := []byte{mem[1*ps], mem[4*ps]}; !bytes.Equal(got, []byte{0xEE, 0xEE}) {
		t.Errorf("invalidated page 1 and untouched page 4 read %x after Invalidate; want the handler's ee ee", got)
	}
	if got := rec.pages(); !slices.Equal(got, []int{1, 4}) {
		t.Errorf("faults %v after Invalidate, want [1 4]", got)
	}
	if err := tr.Invalidate(nil); err != nil {
		t.Errorf("Invalidate(nil): %v", err)
	}
}

// Invalidate on a tracker made without LazyOptions.Missing is refused: its
// pages would read as zeros instead of faulting to a helper.
func TestLazyInvalidateNeedsMissing(t *testing.T) {
	ps := unix.Getpagesize()
	mem := mapArena(t, 4*ps)
	tr, err := NewLazy(mem, Options{}, LazyOptions{})
	if errors.Is(err, ErrNotSupported) {
		testenv.Skip(t, "%v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	mem[0] = 1
	if err := tr.Invalidate([]int{0}); !errors.Is(err, ErrState) {
		t.Fatalf("Invalidate without Missing: %v, want ErrState", err)
	}
	if mem[0] != 1 {
		t.Errorf("page 0 reads %d after the refused Invalidate, want 1", mem[0])
	}
}

// A lazy node's twins live in a memory file, where a page costs
// microseconds to populate: the twins of pages that stay zero, rewritten
// or not, stay holes, and the regions' pages are still exact.
func TestLazyZeroTwinsStayHoles(t *testing.T) {
	const pages = 4 * chunkPages
	ps := unix.Getpagesize()
	mem, tr, _, _ := newLazyRecorded(t, pages)
	u := plainRegions(tr)
	for p := range pages {
		mem[p*ps] = 0 // in memory, zero
	}
	const changer = 2*chunkPages + 7
	for i := range 3 * waitFirst {
		if err := tr.Start(len(mem)); err != nil {
			t.Fatal(err)
		}
		for p := range pages {
			mem[p*ps+8] = 0 // rewritten with its own bytes
		}
		if i%2 == 1 {
			mem[changer*ps+9] = byte(i) // a change, then back to zero
		} else {
			mem[changer*ps+9] = 0
		}
		dirty, err := tr.Stop()
		if err != nil {
			t.Fatal(err)
		}
		var want []int
		if i > 0 {
			want = []int{changer}
		}
		if !slices.Equal(dirty, want) {
			t.Fatalf("region %d: dirty %v, want %v", i, dirty, want)
		}
		data := 0
		u.res.twin.spans(&holeCache{}, 0, pages, ps, func(lo, hi int, isData bool) {
			if isData {
				data += hi - lo
			}
		})
		if data > 1 {
			t.Fatalf("region %d: %d twin pages populated, want at most the changed page's", i, data)
		}
	}
	// The twins hold what the memory held at the last Start.
	if err := tr.Start(len(mem)); err != nil {
		t.Fatal(err)
	}
	for p := range pages {
		if !bytes.Equal(tr.Twin(p), mem[p*ps:(p+1)*ps]) {
			t.Fatalf("twin of page %d differs from the memory at Start", p)
		}
	}
	if _, err := tr.Stop(); err != nil {
		t.Fatal(err)
	}
}

// spans tells a memory file's holes from its data, page by page.
func TestTwinSpans(t *testing.T) {
	ps := unix.Getpagesize()
	tw, _, err := newSharedTwin(16 * ps)
	if err != nil {
		t.Fatal(err)
	}
	defer tw.release()
	for _, p := range []int{3, 4, 5, 10, 15} {
		tw.buf[p*ps+1] = 1
	}
	type span struct {
		lo, hi int
		data   bool
	}
	var got []span
	tw.spans(&holeCache{}, 1, 16, ps, func(lo, hi int, data bool) { got = append(got, span{lo, hi, data}) })
	want := []span{{1, 3, false}, {3, 6, true}, {6, 10, false}, {10, 11, true}, {11, 15, false}, {15, 16, true}}
	if !slices.Equal(got, want) {
		t.Fatalf("spans = %v, want %v", got, want)
	}
	got = got[:0]
	tw.spans(&holeCache{}, 6, 10, ps, func(lo, hi int, data bool) { got = append(got, span{lo, hi, data}) })
	if want := []span{{6, 10, false}}; !slices.Equal(got, want) {
		t.Fatalf("spans of a hole = %v, want %v", got, want)
	}
	// Increasing ranges through one cache: the same answers.
	var h holeCache
	got = got[:0]
	for _, r := range [][2]int{{1, 2}, {2, 4}, {7, 8}, {8, 12}, {12, 16}} {
		tw.spans(&h, r[0], r[1], ps, func(lo, hi int, data bool) { got = append(got, span{lo, hi, data}) })
	}
	want = []span{{1, 2, false}, {2, 3, false}, {3, 4, true}, {7, 8, false}, {8, 10, false}, {10, 11, true}, {11, 12, false}, {12, 15, false}, {15, 16, true}}
	if !slices.Equal(got, want) {
		t.Fatalf("spans through a cache = %v, want %v", got, want)
	}
}

// A page installed between regions counts as an announced write: after a
// Start hinted Clean, in every kind of region, it is not reported written
// when the region leaves it alone, and its twin is what was installed (a
// stale twin made the runtime report the page written, and a false
// conflict, under distributed homes).
func TestLazyInstallBeforeCleanStart(t *testing.T) {
	const pages = 8
	ps := unix.Getpagesize()
	for _, mode := range []uffdMode{uffdModePlain, uffdModeAlternate} {
		mem, tr, absent, _ := newLazyRecorded(t, pages)
		tr.(*lazyTracker).mode = mode
		for region := range 12 {
			tr.(Hinter).SetHint(Hint{Clean: region > 0})
			if err := tr.Start(len(mem)); err != nil {
				t.Fatal(err)
			}
			if got := tr.Twin(2); region > 0 && !bytes.Equal(got, mem[2*ps:3*ps]) {
				t.Fatalf("mode %d, region %d: the twin of page 2 is not its content", mode, region)
			}
			mem[0*ps+9] = byte(region + 10)
			dirty, err := tr.Stop()
			if err != nil {
				t.Fatal(err)
			}
			if want := []int{0}; !slices.Equal(dirty, want) {
				t.Fatalf("mode %d, region %d: dirty %v, want %v", mode, region, dirty, want)
			}
			// Between regions, page 2 is dropped and installed again with
			// new content, as a page pushed to a node that lacks it.
			absent[2] = true
			if err := tr.Invalidate([]int{2}); err != nil {
				t.Fatal(err)
			}
			if ok, err := tr.Install(2, bytes.Repeat([]byte{byte(region + 1)}, ps)); !ok || err != nil {
				t.Fatalf("Install: %v, %v", ok, err)
			}
			absent[2] = false
		}
	}
}

// TestLazyDropTwins: after the last region, DropTwins leaves no page of
// the twin file populated, and a Start after it fails instead of trusting
// twins that are gone.
func TestLazyDropTwins(t *testing.T) {
	const pages = 2 * chunkPages
	ps := unix.Getpagesize()
	mem, tr, _, _ := newLazyRecorded(t, pages)
	u := plainRegions(tr)
	for i := range 3 {
		if err := tr.Start(len(mem)); err != nil {
			t.Fatal(err)
		}
		for p := range pages {
			mem[p*ps+8] = byte(i + 1)
		}
		if _, err := tr.Stop(); err != nil {
			t.Fatal(err)
		}
	}
	populated := func() int {
		data := 0
		u.res.twin.spans(&holeCache{}, 0, pages, ps, func(lo, hi int, isData bool) {
			if isData {
				data += hi - lo
			}
		})
		return data
	}
	if n := populated(); n == 0 {
		t.Fatal("no twin page populated before DropTwins: the test proves nothing")
	}
	if err := tr.DropTwins(); err != nil {
		t.Fatal(err)
	}
	if n := populated(); n != 0 {
		t.Fatalf("%d twin pages still populated after DropTwins", n)
	}
	if mem[ps+8] != 3 {
		t.Fatalf("DropTwins changed the memory: %d", mem[ps+8])
	}
	if err := tr.Start(len(mem)); !errors.Is(err, ErrState) {
		t.Fatalf("Start after DropTwins: %v, want ErrState", err)
	}
}
