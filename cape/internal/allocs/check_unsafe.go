package allocs

import (
	"fmt"
	"reflect"
	"unsafe"
)

// CheckPointers returns an error naming the first pointer word of a live
// allocation, in mem (the whole arena: offsets are from its start), that is
// neither nil nor an address in mem (its end included). The Go collector
// does not scan the arena: Go heap memory that only the arena points to
// would be freed under the program, and its address means nothing on
// another node.
func (t *Table) CheckPointers(mem []byte) error {
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(mem)))
	hi := lo + uintptr(len(mem))
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, a := range t.pointerful {
		elem := a.Size / a.N
		for i := range a.N {
			e := mem[a.Off+i*elem:]
			if w, bad := Stray(e, a.Ptrs, lo, hi); bad {
				return fmt.Errorf("%s holds a pointer outside the CAPE arena (%#x, Go heap memory): memory that arena data points to must be in the arena too; make rows of arena slices with make inside the program (cape.Make by hand) so that CAPE can place them",
					a.element(i, w.Path), *(*uintptr)(unsafe.Pointer(&e[w.Off])))
			}
		}
	}
	return nil
}

// Stray returns the first of words (those of b's type) in b, one value,
// that is neither nil nor an address in [lo, hi] (hi included), and false
// if there is none.
func Stray(b []byte, words []PtrWord, lo, hi uintptr) (PtrWord, bool) {
	for _, w := range words {
		p := *(*uintptr)(unsafe.Pointer(&b[w.Off]))
		if p != 0 && (p < lo || p > hi) {
			return w, true
		}
	}
	return PtrWord{}, false
}

// VarBytes returns the memory of the variables vars point to (one []byte
// each, aliasing the variable, valid while it lives), once it checked that
// each is a non-nil pointer to a type the arena can hold and that any
// pointers in the variables are nil or addresses in [lo, hi] (the arena,
// its end included). Errors name the variable by its position, from 1.
func VarBytes(vars []any, lo, hi uintptr) ([][]byte, error) {
	out := make([][]byte, len(vars))
	for i, v := range vars {
		rv := reflect.ValueOf(v)
		if rv.Kind() != reflect.Pointer || rv.IsNil() {
			return nil, fmt.Errorf("variable %d: want a non-nil pointer, got %T", i+1, v)
		}
		t := rv.Type().Elem()
		b := unsafe.Slice((*byte)(rv.UnsafePointer()), t.Size())
		words, err := PointerWords(t)
		if err != nil {
			return nil, fmt.Errorf("variable %d (%s): %w", i+1, t, err)
		}
		if w, bad := Stray(b, words, lo, hi); bad {
			what := "its value"
			if w.Path != "" {
				what = w.Path
			}
			return nil, fmt.Errorf("variable %d (%s): %s points outside the arena (only memory the parallel regions write is placed there)", i+1, t, what)
		}
		out[i] = b
	}
	return out, nil
}
