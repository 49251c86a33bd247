//go:build linux

package pager

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/cape-go/cape/internal/pagemem"
	"github.com/cape-go/cape/internal/testenv"
	"github.com/cape-go/cape/monitor"
	"github.com/cape-go/cape/transport"
	"golang.org/x/sys/unix"
)

// A page the helper installs must have its twin and its state right from
// the moment it is mapped: a thread waiting for it can resume then (a
// signal ends its wait, and the access is retried) and a page read ahead
// has no waiter, so the region may write the page and end while the
// helper is still at work. The test watches the pages become mapped
// (mincore, which does not fault them in) while the helper installs a read
// ahead of MaxPages pages, and checks each page's state and twin at once.
// Installing first and setting the twin and state after fails it.
func TestInstallTwinAndStateBeforeMapping(t *testing.T) {
	ps := unix.Getpagesize()
	const pages = MaxPages
	mem, err := unix.Mmap(-1, 0, pages*ps, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(mem)
	tr, err := monitor.NewLazy(mem, monitor.Options{}, monitor.LazyOptions{Missing: true})
	if errors.Is(err, monitor.ErrNotSupported) {
		testenv.Skip(t, "%v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	for p := range pages {
		mem[p*ps] = 1 // present, with content the fetch replaces
	}
	twins, err := unix.Mmap(tr.TwinFD(), 0, pages*ps, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(twins)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	token := bytes.Repeat([]byte{7}, transport.MinTokenLen)
	const job, rounds = 42, 20
	tcfg := transport.Config{Token: token, JobID: JobID(job), Size: 2, Broadcast: transport.BroadcastStar, MaxFrame: 1 << 20}
	served := make(chan error, 1)
	go func() { served <- serveAll(ln, tcfg, pages, ps) }()

	h, err := Start(Config{Rank: 1, Size: 2, Job: job, Token: token, Master: ln.Addr().String(),
		Base: uint64(uintptr(unsafe.Pointer(&mem[0]))), ArenaSize: len(mem), PageSize: ps,
		UffdFD: tr.UffdFD(), TwinFD: tr.TwinFD()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.Ready(); err != nil {
		t.Fatal(err)
	}
	all := make([]int, pages)
	for p := range all {
		all[p] = p
	}
	// Each round invalidates every page and faults page 0 in, which
	// fetches all of them; the window a wrong order leaves is short, so
	// the test looks at many installs. Page q's first byte is q+10+v in
	// version v's answer.
	for v := uint64(1); v <= rounds; v++ {
		h.SetVersion(v)
		for _, p := range all {
			h.MarkInvalid(p)
		}
		if err := tr.Invalidate(all); err != nil {
			t.Fatal(err)
		}
		watchInstalls(t, h, mem, twins, v)
	}
	if err := h.Close(); err != nil {
		t.Error(err)
	}
	ln.Close()
	if err := <-served; err != nil {
		t.Error(err)
	}
}

// watchInstalls reads page 0 of mem, whose pages are all invalidated,
// while a watcher checks each page's state and twin the moment it becomes
// mapped (one mincore call a page, so that the check follows the mapping
// closely); the helper answers version v.
func watchInstalls(t *testing.T, h *Helper, mem, twins []byte, v uint64) {
	t.Helper()
	ps := unix.Getpagesize()
	pages := len(mem) / ps
	want := func(p int) byte { return byte(p + 10 + int(v)) }
	var stop atomic.Bool
	bad := make(chan string, pages)
	watched := make(chan int)
	go func() {
		vec := make([]byte, 1)
		next := 0
		for !stop.Load() && next < pages {
			if err := pagemem.Mincore(mem[next*ps:(next+1)*ps], vec); err != nil {
				bad <- err.Error()
				break
			}
			if vec[0]&1 == 0 {
				continue
			}
			switch {
			case h.Invalid(next):
				bad <- fmt.Sprintf("version %d: page %d mapped while still marked invalid", v, next)
			case twins[next*ps] != want(next):
				bad <- fmt.Sprintf("version %d: page %d mapped before its twin was set", v, next)
			}
			next++
		}
		watched <- next
	}()
	if got := mem[0]; got != want(0) { // faults: the helper fetches pages 0.. (read ahead)
		t.Errorf("version %d: page 0 reads %d after the fetch, want %d", v, got, want(0))
	}
	var seen int
	select {
	case seen = <-watched:
	case <-time.After(10 * time.Second):
		stop.Store(true)
		seen = <-watched
	}
	close(bad)
	for msg := range bad {
		t.Error(msg)
	}
	if seen != pages {
		t.Errorf("version %d: the watcher saw %d of %d pages mapped", v, seen, pages)
	}
	for p := range pages {
		if got := mem[p*ps]; got != want(p) {
			t.Errorf("version %d: page %d reads %d, want %d", v, p, got, want(p))
		}
	}
}

// serveAll is a page server for one helper: it answers every request with
// the page asked for and all the pages after it (page p's first byte
// p+10+v for a request of version v), until the connection ends.
func serveAll(ln net.Listener, tcfg transport.Config, pages, ps int) error {
	pm, err := transport.NewMaster(ln, tcfg)
	if err != nil {
		return err
	}
	defer pm.Close()
	for {
		msg, err := pm.Recv(1)
		if err != nil {
			return nil // the helper closed
		}
		p, err := ParseRequest(msg.Payload, pages)
		if err != nil {
			return err
		}
		var out []byte
		for q := p; q < pages && q < p+MaxPages; q++ {
			content := make([]byte, ps)
			content[0] = byte(q + 10 + int(msg.Seq))
			out = AppendPage(out, q, content)
		}
		if err := pm.Send(1, transport.Message{Kind: KindPages, Seq: msg.Seq, Payload: out}); err != nil {
			return err
		}
	}
}
