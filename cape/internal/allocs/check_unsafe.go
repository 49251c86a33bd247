package allocs

import (
	"fmt"
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
		elem := uintptr(a.Size / a.N)
		for i := range uintptr(a.N) {
			for _, w := range a.Ptrs {
				o := uintptr(a.Off) + i*elem + w.Off
				v := *(*uintptr)(unsafe.Pointer(&mem[o]))
				if v != 0 && (v < lo || v > hi) {
					return fmt.Errorf("%s holds a pointer outside the CAPE arena (%#x, Go heap memory): memory that arena data points to must be in the arena too; make rows of arena slices with make inside the program (cape.Make by hand) so that CAPE can place them",
						a.element(int(i), w.Path), v)
				}
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
