//go:build linux

package lazy

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/cape-go/cape/internal/testenv"
	"github.com/cape-go/cape/monitor"
	"golang.org/x/sys/unix"
)

// The lazy master's snapshot, with the master's tracker watching the
// lacked pages, still serves every lacked page as of the last exchange:
// a page written by sequential code after a snapshot keeps its snapshot
// until the next exchange, which refreshes it, even where it restores the
// page's content at the last Start; so does a page the region's deltas
// touched. A lacked page nothing wrote is not compared again where the
// tracker tracks it.
func TestSnapshotWatched(t *testing.T) {
	ps := os.Getpagesize()
	mem, tr, m := newWatchedMaster(t, 16)
	region := func(write func()) {
		t.Helper()
		if err := tr.Start(len(mem)); err != nil {
			t.Fatal(err)
		}
		write()
		if _, err := tr.Stop(); err != nil {
			t.Fatal(err)
		}
	}
	region(func() {})
	for p := 2; p < 9; p++ {
		m.lack(1, p, "R")
	}
	m.snapshot(nil, nil)
	for k := range 6 {
		mem[3*ps+k]++ // sequential code, after the snapshot
		if m.snap[3][k] == mem[3*ps+k] {
			t.Fatalf("iteration %d: the snapshot of page 3 follows the arena", k)
		}
		if k%2 == 1 {
			mem[8*ps+k]++ // sequential code too, every other time
			// and it restores what the last exchange injected in page 7.
			mem[7*ps+k-1]--
		}
		region(func() { mem[5*ps+k]++ })
		mem[6*ps+k]++        // the exchange injects page 6
		m.snap[2][0] ^= 0xFF // no one wrote page 2: its snapshot is not compared
		touched := map[int]int{5: 0, 6: 1}
		if k%2 == 0 {
			mem[7*ps+k]++ // injected too
			touched[7] = 1
		}
		mem[4*ps+k]++ // in the merged delta only
		m.snapshot(touched, []int{4})
		for _, p := range []int{3, 4, 5, 6, 7, 8} {
			if !bytes.Equal(m.snap[p], mem[p*ps:(p+1)*ps]) {
				t.Fatalf("iteration %d: the snapshot of page %d is not as of the exchange", k, p)
			}
		}
		// Where the tracker tracks page 2 (by write-protection), it knows
		// no one wrote it; in plain regions it knows nothing.
		if b := m.watch.Between(); !b.MayHaveChanged(2) && m.snap[2][0] == mem[2*ps] {
			t.Errorf("iteration %d: page 2, written by no one, was compared again", k)
		}
		if b := m.watch.Between(); b.MayHaveChanged(2) && m.snap[2][0] != mem[2*ps] {
			t.Errorf("iteration %d: page 2, unknown to the tracker, was not compared", k)
		}
		// Page 2 is never written: its snapshot is the arena's, whether
		// or not this snapshot compared it.
		copy(m.snap[2], mem[2*ps:3*ps])
	}
}

// newWatchedMaster returns an arena of npages mapped pages, a uffd tracker
// of it, and a Master (without a page server) over it watched by the
// tracker, as NewMaster sets it up; it skips where there is no uffd
// tracker.
func newWatchedMaster(t *testing.T, npages int) ([]byte, monitor.Tracker, *Master) {
	t.Helper()
	ps := os.Getpagesize()
	mem, err := unix.Mmap(-1, 0, npages*ps, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Munmap(mem) })
	tr, err := monitor.New(monitor.BackendUffd, mem, monitor.Options{})
	if errors.Is(err, monitor.ErrNotSupported) {
		testenv.Skip(t, "uffd tracker: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tr.Close() })
	m := newMaster(mem, ps, 2)
	m.watch = tr.(monitor.Watcher)
	m.watch.WatchBetween()
	return mem, tr, m
}
