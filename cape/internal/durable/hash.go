package durable

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"time"
)

// ArenaHash is the hash of the arena's extent recorded at each region's
// entry: a hash of each page (see pageHash), combined in page order. Pages
// the system reports never populated (see Unpopulated) are zero and take a
// precomputed hash without being read: reading them would fault in the zero
// page, which costs tens of microseconds a page in a virtual machine. twins,
// if not nil, gives the entry content of the pages written since (their
// twins, in increasing page order, the pages in written), which are read
// there instead. A program that differs outside its regions between the
// logged run and the restart goes unnoticed in a region with probability
// about 2^-64.
func ArenaHash(mem []byte, pageSize int, written []int, twins [][]byte) uint64 {
	return ArenaHashZero(mem, pageSize, written, twins, Unpopulated(mem, pageSize))
}

// ArenaHashZero is ArenaHash with the unpopulated pages given (zero[p]:
// page p was never populated at the region's entry, so its entry content
// is zero, written since or not). It never returns ChainedHash.
func ArenaHashZero(mem []byte, pageSize int, written []int, twins [][]byte, zero []bool) uint64 {
	var zh uint64
	if zero != nil {
		zh = pageHash(make([]byte, pageSize))
	}
	h := uint64(len(mem))
	for p := 0; p*pageSize < len(mem); p++ {
		var ph uint64
		twin := []byte(nil)
		if len(written) > 0 && written[0] == p {
			twin = twins[0]
			written, twins = written[1:], twins[1:]
		}
		switch {
		case zero != nil && zero[p]:
			ph = zh
		case twin != nil:
			ph = pageHash(twin)
		default:
			ph = pageHash(mem[p*pageSize : min(len(mem), (p+1)*pageSize)])
		}
		h = bits.RotateLeft64(h^ph*hashM2, 27)*hashM1 + hashM4
	}
	if h == ChainedHash {
		h = 1
	}
	return h
}

// ChainedHash is the entry hash a record holds when its region's entry is
// the arena as the previous region left it: the stretch between them was
// clean (the translator proved, and the runtime confirms, that nothing but
// the injection of the previous region's merged delta wrote the arena
// since), so the live master hashes nothing. A stencil's regions are all
// such. A replay checks the claim instead of a hash: the arena at the
// region's entry must hash as it did right after the previous region was
// injected (or the image restored), so sequential code that wrote the arena
// in the restarted run is refused as any other difference.
const ChainedHash = 0

// hashChain says which region, if its stretch is clean, enters the arena
// as the last region the master ended left it.
type hashChain struct {
	next   uint64 // that region (0: none)
	extent int    // and its extent
}

// serves reports whether region seq, of extent bytes, whose stretch is
// clean or not, takes ChainedHash.
func (c *hashChain) serves(seq uint64, extent int, clean bool) bool {
	return clean && c.next == seq && c.extent == extent
}

// ended records that region seq, of extent bytes, ended on the master.
func (c *hashChain) ended(seq uint64, extent int) { c.next, c.extent = seq+1, extent }

const (
	hashM1 = 0x9E3779B97F4A7C15
	hashM2 = 0xC2B2AE3D27D4EB4F
	hashM3 = 0x165667B19E3779F9
	hashM4 = 0x27D4EB2F165667C5
)

// pageHash hashes b with four independent multiply-rotate lanes over 8-byte
// words (the stripe loop of xxHash64, not its exact output): about as fast
// as memory reads.
func pageHash(b []byte) uint64 {
	le := binary.LittleEndian
	h1, h2, h3, h4 := uint64(1), uint64(2), uint64(3), uint64(4)
	for len(b) >= 32 {
		h1 = bits.RotateLeft64(h1+le.Uint64(b)*hashM2, 31) * hashM1
		h2 = bits.RotateLeft64(h2+le.Uint64(b[8:])*hashM2, 31) * hashM1
		h3 = bits.RotateLeft64(h3+le.Uint64(b[16:])*hashM2, 31) * hashM1
		h4 = bits.RotateLeft64(h4+le.Uint64(b[24:])*hashM2, 31) * hashM1
		b = b[32:]
	}
	h := bits.RotateLeft64(h1, 1) + bits.RotateLeft64(h2, 7) + bits.RotateLeft64(h3, 12) + bits.RotateLeft64(h4, 18)
	for _, c := range b {
		h = bits.RotateLeft64(h^uint64(c)*hashM3, 11) * hashM4
	}
	return h
}

// Hashing is an arena hash computed on its own goroutine (StartHash).
// Its result is read once, by Log.Await, on the goroutine that started it.
type Hashing struct {
	done chan struct{}
	hash uint64
	took time.Duration
}

// StartHash starts computing ArenaHashZero(mem, pageSize, written,
// twins, zero) on a new goroutine, where twins are twin's pages of written
// (read before StartHash returns; written is copied). Nothing may write
// mem's pages outside written, nor the twins, until Log.Await returns.
func StartHash(mem []byte, pageSize int, written []int, twin func(page int) []byte, zero []bool) *Hashing {
	twins := make([][]byte, len(written))
	for i, p := range written {
		twins[i] = twin(p)
	}
	written = slices.Clone(written)
	h := &Hashing{done: make(chan struct{})}
	go func() {
		defer close(h.done)
		t := time.Now()
		h.hash = ArenaHashZero(mem, pageSize, written, twins, zero)
		h.took = time.Since(t)
	}()
	return h
}

// Await waits for h and returns its hash; the time it took, and the time
// the caller waited for it, count in the log's statistics.
func (d *Log) Await(h *Hashing) uint64 {
	t := time.Now()
	<-h.done
	d.hashWait += time.Since(t)
	d.hashing += h.took
	return h.hash
}
