package cape

import (
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	"github.com/cape-go/cape/internal/arena"
)

// AllocError reports an arena allocation that could not be made.
type AllocError struct {
	Type string // the element type, as Go spells it
	N    int    // number of elements requested
	Err  error
}

func (e *AllocError) Error() string {
	return fmt.Sprintf("cape: allocate %d × %s in the arena: %v", e.N, e.Type, e.Err)
}

func (e *AllocError) Unwrap() error { return e.Err }

// ErrPointers is wrapped by AllocError when the element type contains
// pointers, which the arena cannot hold.
var ErrPointers = fmt.Errorf("type contains pointers (the arena holds only pointer-free data: numbers, bools, arrays and structs of them)")

var (
	arenaOnce sync.Once
	theArena  *arena.Arena
	arenaErr  error
)

// sharedArena maps the arena on first use. Mapping is lazy so that package
// level variables can be allocated in it before main (and before Init) runs.
func sharedArena() (*arena.Arena, error) {
	arenaOnce.Do(func() {
		size, err := arena.SizeFromEnv()
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
		return nil, &AllocError{Type: t.String(), N: n, Err: fmt.Errorf("negative length")}
	}
	if where := pointerIn(t); where != "" {
		return nil, &AllocError{Type: t.String(), N: n, Err: fmt.Errorf("%w: %s", ErrPointers, where)}
	}
	a, err := sharedArena()
	if err != nil {
		return nil, &AllocError{Type: t.String(), N: n, Err: err}
	}
	size := int(t.Size())
	if size != 0 && n > (1<<62)/size {
		return nil, &AllocError{Type: t.String(), N: n, Err: arena.ErrExhausted}
	}
	off, err := a.Alloc(n*size, t.Align())
	if err != nil {
		return nil, &AllocError{Type: t.String(), N: n, Err: err}
	}
	recordAlloc(off, n*size, n, t.String())
	if n == 0 {
		return []T{}, nil
	}
	mem := a.Bytes()[off : off+n*size]
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(mem))), n), nil
}

// Make allocates n zeroed elements of T in the arena. T must not contain
// pointers. Like the built-in make, it panics (with an *AllocError) when it
// cannot allocate; Alloc returns the error instead.
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
	if len(s) == 0 {
		return new(T)
	}
	return &s[0]
}

// pointerIn returns a description of where t holds a pointer, or "".
func pointerIn(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice:
		// Slices may live in the arena, pointing into it (the rows of a
		// [][]float64): the translator places what they point to there.
		// Temporary, for branch idioms: the runtime branch checks it.
	case reflect.Pointer, reflect.UnsafePointer, reflect.Map,
		reflect.String, reflect.Chan, reflect.Func, reflect.Interface:
		return t.String() + " is a " + t.Kind().String()
	case reflect.Array:
		if w := pointerIn(t.Elem()); w != "" {
			return w
		}
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if w := pointerIn(f.Type); w != "" {
				return "field " + t.String() + "." + f.Name + ": " + w
			}
		}
	}
	return ""
}
