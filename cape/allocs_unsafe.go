package cape

import (
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"unsafe"
)

// allocation is what the runtime remembers of one live arena allocation:
// where it came from, to name the variable behind an address in errors, and
// where its pointer words lie, to check them.
type allocation struct {
	off, size int
	n         int
	typ       string    // the element type
	ptrs      []ptrWord // the pointer words of one element, by offset
	where     string    // file:line of the allocating call in the user's program
}

// ptrWord is a pointer word of a type: a pointer, or a slice's data
// pointer.
type ptrWord struct {
	off  uintptr
	path string // how to reach it from the element: "", ".Rows", "[2].V"
}

var (
	allocMu sync.Mutex
	// allocMu protects the following fields.
	allocs     []*allocation // live allocations, by offset
	pointerful []*allocation // the live allocations whose type has pointer words, by offset
)

func recordAlloc(a *allocation) {
	allocMu.Lock()
	defer allocMu.Unlock()
	allocs = insertByOff(allocs, a)
	if len(a.ptrs) > 0 {
		pointerful = insertByOff(pointerful, a)
	}
}

func insertByOff(list []*allocation, a *allocation) []*allocation {
	i := sort.Search(len(list), func(i int) bool { return list[i].off > a.off })
	return slices.Insert(list, i, a)
}

// forgetAlloc removes and returns the live allocation that starts at off,
// or nil.
func forgetAlloc(off int) *allocation {
	allocMu.Lock()
	defer allocMu.Unlock()
	i, ok := findByOff(allocs, off)
	if !ok {
		return nil
	}
	a := allocs[i]
	allocs = slices.Delete(allocs, i, i+1)
	if j, ok := findByOff(pointerful, off); ok {
		pointerful = slices.Delete(pointerful, j, j+1)
	}
	return a
}

func findByOff(list []*allocation, off int) (int, bool) {
	i := sort.Search(len(list), func(i int) bool { return list[i].off >= off })
	return i, i < len(list) && list[i].off == off
}

// caller returns file:line of the first frame outside this package.
func caller() string {
	pcs := make([]uintptr, 16)
	k := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:k])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, "github.com/cape-go/cape/cape.") || strings.HasSuffix(f.File, "_test.go") {
			return fmt.Sprintf("%s:%d", f.File, f.Line)
		}
		if !more {
			return "unknown"
		}
	}
}

// describe names the arena byte at off: the allocation and element holding
// it, or "" if no live allocation holds it.
func describe(off int) string {
	allocMu.Lock()
	defer allocMu.Unlock()
	i := sort.Search(len(allocs), func(i int) bool { return allocs[i].off+allocs[i].size > off })
	if i == len(allocs) || off < allocs[i].off {
		return ""
	}
	return allocs[i].element((off-allocs[i].off)/max(allocs[i].size/max(allocs[i].n, 1), 1), "")
}

// element names element i of a, and the word at path inside it:
// "element [3].Rows of the []main.grid allocated at main.go:12".
func (a *allocation) element(i int, path string) string {
	if a.n > 1 {
		return fmt.Sprintf("element [%d]%s of the []%s allocated at %s", i, path, a.typ, a.where)
	}
	switch {
	case strings.HasPrefix(path, "."):
		return fmt.Sprintf("field %s of the %s allocated at %s", path[1:], a.typ, a.where)
	case path != "":
		return fmt.Sprintf("element %s of the %s allocated at %s", path, a.typ, a.where)
	}
	return fmt.Sprintf("the %s allocated at %s", a.typ, a.where)
}

// pointerWords returns the pointer words of t, or an error naming what in t
// the arena cannot hold.
func pointerWords(t reflect.Type) ([]ptrWord, error) {
	switch t.Kind() {
	case reflect.Pointer, reflect.UnsafePointer, reflect.Slice:
		return []ptrWord{{}}, nil
	case reflect.String, reflect.Map, reflect.Chan, reflect.Func, reflect.Interface:
		return nil, fmt.Errorf("%s is a %s", t, t.Kind())
	case reflect.Array:
		inner, err := pointerWords(t.Elem())
		if err != nil || len(inner) == 0 {
			return nil, err
		}
		var out []ptrWord
		for i := range t.Len() {
			for _, w := range inner {
				out = append(out, ptrWord{uintptr(i)*t.Elem().Size() + w.off, fmt.Sprintf("[%d]%s", i, w.path)})
			}
		}
		return out, nil
	case reflect.Struct:
		var out []ptrWord
		for i := range t.NumField() {
			f := t.Field(i)
			inner, err := pointerWords(f.Type)
			if err != nil {
				return nil, fmt.Errorf("field %s.%s: %w", t, f.Name, err)
			}
			for _, w := range inner {
				out = append(out, ptrWord{f.Offset + w.off, "." + f.Name + w.path})
			}
		}
		return out, nil
	}
	return nil, nil
}

// pointerFree returns an error naming where t holds a pointer, or nil.
func pointerFree(t reflect.Type) error {
	words, err := pointerWords(t)
	if err != nil {
		return err
	}
	if len(words) > 0 {
		return fmt.Errorf("%s holds a pointer (at %q)", t, words[0].path)
	}
	return nil
}

// checkPointers returns an error naming the first pointer word of a live
// allocation that is neither nil nor a pointer into the arena. The Go
// collector does not scan the arena: Go heap memory that only the arena
// points to would be freed under the program, and its address means nothing
// on another node.
func checkPointers(mem []byte) error {
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(mem)))
	hi := lo + uintptr(len(mem))
	allocMu.Lock()
	defer allocMu.Unlock()
	for _, a := range pointerful {
		elem := uintptr(a.size / a.n)
		for i := range uintptr(a.n) {
			for _, w := range a.ptrs {
				o := uintptr(a.off) + i*elem + w.off
				v := *(*uintptr)(unsafe.Pointer(&mem[o]))
				if v != 0 && (v < lo || v > hi) {
					return fmt.Errorf("%s holds a pointer outside the CAPE arena (%#x, Go heap memory): memory that arena data points to must be in the arena too; make rows of arena slices with make inside the program (cape.Make by hand) so that CAPE can place them",
						a.element(int(i), w.path), v)
				}
			}
		}
	}
	return nil
}
