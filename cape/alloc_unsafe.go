package cape

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
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
}

func (e *AllocError) Error() string {
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
		return nil, &AllocError{Type: t.String(), N: n, Err: err}
	}
	allocTable.Add(&allocs.Allocation{Off: off, Size: n * size, N: n, Type: t.String(), Ptrs: words, Where: allocs.Caller(0, "github.com/cape-go/cape/cape")})
	mem := a.Bytes()[off : off+n*size]
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(mem))), n), nil
}

// Make allocates n zeroed elements of T in the arena. T may hold pointers
// and slices only if they point into the arena (rows of a [][]T made with
// Make, for example): the Go collector does not scan the arena, and each
// region's Start checks it. Like the built-in make, Make panics (with an
// *AllocError) when it cannot allocate; Alloc returns the error instead.
func Make[T any](n int) []T {
	s, err := Alloc[T](n)
	if err != nil {
		panic(err)
	}
	return s
}

// New allocates one zeroed T in the arena; see Make.
func New[T any]() *T {
	s, err := Alloc[T](1)
	if err != nil {
		panic(err)
	}
	return &s[0]
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
