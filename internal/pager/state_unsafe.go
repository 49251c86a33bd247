//go:build linux

package pager

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// state is the memory the node and its helper share: the version word,
// the count of bytes the helper received from the master, then one bit per
// arena page, set while the page is invalidated, then one 32-bit word per
// page, the rank of the node that serves it (distributed homes; 0, the
// master, otherwise). Distributed homes add, for the helper's page server:
// the count of bytes it served, one bit per page set while the node holds
// it (its bytes are in the snapshot file), one word per page with a bit
// per rank below 64 that fetched it, and, by rank below ReplicaRanks, the
// rank + 1 of the node keeping its replica (0: none). Words are read and
// written atomically.
type state struct {
	mem     []byte
	version *uint64
	fetched *uint64
	served  *uint64
	bits    []uint64
	holders []uint32
	held    []uint64
	readers []uint64
	replica []uint32
}

// ReplicaRanks bounds the ranks whose replicas the state can locate: a
// node of a higher rank is not replicated (its loss stops the job).
const ReplicaRanks = 1024

// updating marks the version word while the node rewrites the snapshot
// (distributed homes): the helper's server serves no page meanwhile.
const updating = 1 << 63

// stateSize is the size of the state of an arena of npages pages.
func stateSize(npages int) int { return 24 + 16*bitWords(npages) + 12*npages + 4*ReplicaRanks }

// bitWords is the number of words of the bitmap of npages pages.
func bitWords(npages int) int { return (npages + 63) / 64 }

// newStateFile creates the state's memory file for npages pages.
func newStateFile(npages int) (int, error) {
	fd, err := unix.MemfdCreate("cape-pager-state", unix.MFD_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("memfd_create: %w", err)
	}
	if err := unix.Ftruncate(fd, int64(stateSize(npages))); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("size the state file: %w", err)
	}
	return fd, nil
}

// mapState maps the state file fd of an arena of npages pages.
func mapState(fd, npages int) (*state, error) {
	mem, err := unix.Mmap(fd, 0, stateSize(npages), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map the state file: %w", err)
	}
	words := bitWords(npages)
	bits := 24
	held := bits + 8*words
	readers := held + 8*words
	hold := readers + 8*npages
	repl := hold + 4*npages
	return &state{
		mem:     mem,
		version: (*uint64)(unsafe.Pointer(&mem[0])),
		fetched: (*uint64)(unsafe.Pointer(&mem[8])),
		served:  (*uint64)(unsafe.Pointer(&mem[16])),
		bits:    unsafe.Slice((*uint64)(unsafe.Pointer(&mem[bits])), words),
		held:    unsafe.Slice((*uint64)(unsafe.Pointer(&mem[held])), words),
		readers: unsafe.Slice((*uint64)(unsafe.Pointer(&mem[readers])), npages),
		holders: unsafe.Slice((*uint32)(unsafe.Pointer(&mem[hold])), npages),
		replica: unsafe.Slice((*uint32)(unsafe.Pointer(&mem[repl])), ReplicaRanks),
	}, nil
}

func (s *state) unmap() error { return unix.Munmap(s.mem) }

func (s *state) loadVersion() uint64 { return atomic.LoadUint64(s.version) }

func (s *state) storeVersion(v uint64) { atomic.StoreUint64(s.version, v) }

func (s *state) addFetched(n int) { atomic.AddUint64(s.fetched, uint64(n)) }

func (s *state) takeFetched() uint64 { return atomic.SwapUint64(s.fetched, 0) }

func (s *state) invalid(p int) bool {
	return atomic.LoadUint64(&s.bits[p/64])&(1<<(p%64)) != 0
}

func (s *state) mark(p int) { atomic.OrUint64(&s.bits[p/64], 1<<(p%64)) }

func (s *state) clear(p int) { atomic.AndUint64(&s.bits[p/64], ^uint64(1<<(p%64))) }

func (s *state) holder(p int) int { return int(atomic.LoadUint32(&s.holders[p])) }

func (s *state) setHolder(p, h int) { atomic.StoreUint32(&s.holders[p], uint32(h)) }

// replicaAt returns the rank of the node keeping rank's replica, or -1.
func (s *state) replicaAt(rank int) int {
	if rank < 0 || rank >= ReplicaRanks {
		return -1
	}
	return int(atomic.LoadUint32(&s.replica[rank])) - 1
}

// setReplicaAt records that node at keeps rank's replica (-1: none).
func (s *state) setReplicaAt(rank, at int) {
	if rank >= 0 && rank < ReplicaRanks {
		atomic.StoreUint32(&s.replica[rank], uint32(at+1))
	}
}

func (s *state) isHeld(p int) bool {
	return atomic.LoadUint64(&s.held[p/64])&(1<<(p%64)) != 0
}

func (s *state) setHeld(p int, held bool) {
	if held {
		atomic.OrUint64(&s.held[p/64], 1<<(p%64))
	} else {
		atomic.AndUint64(&s.held[p/64], ^uint64(1<<(p%64)))
	}
}

// dropHeld clears every page's held bit.
func (s *state) dropHeld() {
	for i := range s.held {
		atomic.StoreUint64(&s.held[i], 0)
	}
}

// learn records that rank fetched page p (ranks from 64 on are not
// recorded: their pages are not pushed).
func (s *state) learn(p, rank int) {
	if rank < 64 {
		atomic.OrUint64(&s.readers[p], 1<<rank)
	}
}

func (s *state) readersOf(p int) uint64 { return atomic.LoadUint64(&s.readers[p]) }

func (s *state) addServed(n int) { atomic.AddUint64(s.served, uint64(n)) }

func (s *state) takeServed() uint64 { return atomic.SwapUint64(s.served, 0) }

// wordsOf is mem (a page-aligned mapping) as 64-bit words.
func wordsOf(mem []byte) []uint64 {
	return unsafe.Slice((*uint64)(unsafe.Pointer(&mem[0])), len(mem)/8)
}
