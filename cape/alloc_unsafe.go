package cape

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/cape-go/cape/cape/internal/allocs"
	"github.com/cape-go/cape/internal/arena"
	"github.com/cape-go/cape/internal/nodeenv"
)

// AllocError reports an arena allocation that could not be made.
type AllocError struct {
	Type string // the element type, as Go spells it
	N    int    // number of elements requested
	Err  error
	// Held, when the arena is exhausted, says which call site's live
	// allocations hold the most of it.
	Held string
}

func (e *AllocError) Error() string {
	if e.Held != "" {
		return fmt.Sprintf("allocate %d × %s in the arena: %v; %s", e.N, e.Type, e.Err, e.Held)
	}
	return fmt.Sprintf("allocate %d × %s in the arena: %v", e.N, e.Type, e.Err)
}

func (e *AllocError) Unwrap() error { return e.Err }

// ErrPointers is wrapped by AllocError when the element type holds memory
// the arena cannot hold.
var ErrPointers = errors.New("the arena holds numbers, bools, pointers and slices (into the arena), and arrays and structs of them; not strings, maps, channels, functions or interfaces")

// ErrFree is wrapped by the errors of Free.
var ErrFree = allocs.ErrFree

var (
	arenaOnce sync.Once
	theArena  *arena.Arena
	arenaErr  error
)

// sharedArena maps the arena on first use. Mapping is lazy so that package
// level variables can be allocated in it before main (and before Init) runs.
func sharedArena() (*arena.Arena, error) {
	arenaOnce.Do(func() {
		size, err := nodeenv.ArenaSize()
		if err != nil {
			arenaErr = err
			return
		}
		theArena, arenaErr = arena.Map(arena.Base, size)
	})
	return theArena, arenaErr
}

// Alloc is Make returning an error instead of panicking.
func Alloc[T any](n int) ([]T, error) {
	t := reflect.TypeFor[T]()
	if n < 0 {
		return nil, &AllocError{Type: t.String(), N: n, Err: errors.New("negative length")}
	}
	words, err := allocs.PointerWords(t)
	if err != nil {
		return nil, &AllocError{Type: t.String(), N: n, Err: fmt.Errorf("%w: %w", ErrPointers, err)}
	}
	a, err := sharedArena()
	if err != nil {
		return nil, &AllocError{Type: t.String(), N: n, Err: err}
	}
	size := int(t.Size())
	if size != 0 && n > (1<<62)/size {
		return nil, &AllocError{Type: t.String(), N: n, Err: arena.ErrExhausted}
	}
	if n == 0 || size == 0 {
		// Nothing to hold: a slice of the right length into the arena (so
		// that storing it in the arena is storing an arena pointer).
		return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(a.Bytes()))), n), nil
	}
	if self != nil {
		self.gap.Dirty() // a block handed out again is zeroed
	}
	off, err := a.Alloc(n*size, t.Align())
	if err != nil {
		held := ""
		if n*size <= a.Size() {
			held = heldMost(err) // it would fit but for what is live
		}
		return nil, &AllocError{Type: t.String(), N: n, Err: err, Held: held}
	}
	noteType(t)
	allocTable.Add(&allocs.Allocation{Off: off, Size: n * size, N: n, Type: t.String(), Ptrs: words, Vars: allocs.VarsOf(t), Where: allocs.Caller(0, "github.com/cape-go/cape/cape")})
	if used := a.Used(); int64(used) >= leakNext.Load() {
		leakNotice(used)
	}
	mem := a.Bytes()[off : off+n*size]
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(mem))), n), nil
}

// leakNext is the arena extent at which leakNotice looks next: 1 GiB,
// then each doubling; leakSeen is what it saw there.
var (
	leakNext atomic.Int64
	leakMu   sync.Mutex
	leakSeen struct {
		where string
		count int
		seq   uint64
		seen  bool
	}
)

func init() { leakNext.Store(1 << 30) }

// leakNotice tells the user, once the arena's extent has reached used (a
// power of two from 2 GiB on), where most of it comes from if one call
// site's live allocations hold more than half of it, and that site has
// gained allocations while regions ran since the last power of two: memory
// made each time around a loop and never reclaimed, which grows until the
// arena or the machine's memory runs out (rows of a large matrix made once
// before the regions do not qualify). The master says it (or the program,
// run alone).
func leakNotice(used int) {
	leakMu.Lock()
	defer leakMu.Unlock()
	next := leakNext.Load()
	if int64(used) < next {
		return // another goroutine took this crossing
	}
	for next <= int64(used) {
		next *= 2
	}
	leakNext.Store(next)
	var seq uint64
	if self != nil {
		if self.rank != 0 {
			return
		}
		seq = self.seq
	}
	where, count, bytes := allocTable.Heaviest()
	prev := leakSeen
	leakSeen.where, leakSeen.count, leakSeen.seq, leakSeen.seen = where, count, seq, true
	if !prev.seen || where != prev.where || count <= prev.count || seq == prev.seq || 2*bytes < used {
		return
	}
	notice("cape: the arena has grown to %.1f GiB; %.1f GiB of it are %d live allocations made at %s, %d of them made while %d regions ran: memory made each time around a loop and never reclaimed grows until the arena or the nodes' memory runs out (cape build and cape run warn of such a make)\n",
		float64(used)/(1<<30), float64(bytes)/(1<<30), count, where, count-prev.count, seq-prev.seq)
}

// heldMost describes, when err says the arena is exhausted, the call site
// whose live allocations hold the most of it; else "".
func heldMost(err error) string {
	if !errors.Is(err, arena.ErrExhausted) {
		return ""
	}
	where, count, bytes := allocTable.Heaviest()
	if where == "" {
		return ""
	}
	return fmt.Sprintf("%.1f MiB of it are %d live allocation(s) made at %s (memory made each time around a loop and never reclaimed fills the arena: cape build and cape run warn of such a make)", float64(bytes)/(1<<20), count, where)
}

// Make allocates n zeroed elements of T in the arena. T may hold pointers
// and slices only if they point into the arena (rows of a [][]T made with
// Make, for example): the Go collector does not scan the arena, and each
// region's Start checks it. Like the built-in make, Make panics (with an
// *AllocError) when asked for what it cannot allocate; Alloc returns the
// error instead. An arena exhausted by what is live in it ends the node
// (and the job) with the error, as running out of memory ends a Go program.
func Make[T any](n int) []T {
	s, err := Alloc[T](n)
	if err != nil {
		allocFailed(err)
	}
	return s
}

// New allocates one zeroed T in the arena; see Make.
func New[T any]() *T {
	s, err := Alloc[T](1)
	if err != nil {
		allocFailed(err)
	}
	return &s[0]
}

// BytesOf returns a copy of s's bytes in the arena, as []byte(s) makes
// one on the Go heap: the translator's form of such a conversion whose
// bytes a parallel region writes.
func BytesOf(s string) []byte {
	b := Make[byte](len(s))
	copy(b, s)
	return b
}

// RunesOf returns s's runes in the arena, as []rune(s) makes them on the
// Go heap (an invalid UTF-8 byte becoming utf8.RuneError).
func RunesOf(s string) []rune {
	r := Make[rune](utf8.RuneCountInString(s))
	i := 0
	for _, c := range s {
		r[i] = c
		i++
	}
	return r
}

// allocFailed ends the node with err if the arena is exhausted (by what
// is live in it, or by a request larger than the arena: the run needs a
// larger --arena-size, as a program out of memory ends), and panics with
// it otherwise (a negative length, a type the arena cannot hold), as the
// built-in make does.
func allocFailed(err error) {
	if errors.Is(err, arena.ErrExhausted) {
		fail(err)
	}
	panic(err)
}

// Free returns the memory of v, a slice from Make or Alloc or a pointer
// from New, to the arena, which hands it out again (zeroed) to a later
// allocation. Every node must free the same allocations at the same points
// of the sequential code, as they allocate them; v must not be used
// afterwards. A nil or empty v is nothing to free. Free refuses, with an
// error wrapping ErrFree, memory outside the arena, a slice or pointer that
// does not start an allocation (a sub-slice, or an allocation freed
// already), and freeing inside a parallel region.
func Free(v any) error {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || rv.Kind() != reflect.Slice && rv.Kind() != reflect.Pointer {
		return fmt.Errorf("%w a %T: want a slice from cape.Make or a pointer from cape.New", ErrFree, v)
	}
	what := rv.Type().String()
	if rv.IsNil() || rv.Kind() == reflect.Slice && rv.Cap() == 0 || rv.Type().Elem().Size() == 0 {
		return nil
	}
	a, err := sharedArena()
	if err != nil {
		return err
	}
	p := rv.Pointer()
	if p < a.Addr() || p-a.Addr() >= uintptr(a.Size()) {
		return fmt.Errorf("%w the %s at %#x: it is not in the CAPE arena (Go heap memory); only memory from cape.Make or cape.New can be freed", ErrFree, what, p)
	}
	off := int(p - a.Addr())
	if self != nil && self.cur != nil {
		return fmt.Errorf("%w %s inside %s: free it after the region", ErrFree, allocTable.Describe(off), self.cur.label())
	}
	return allocTable.Release(off, what, a.Free)
}
