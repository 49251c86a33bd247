package allocs

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
)

// ErrFree is wrapped by the errors of Release.
var ErrFree = errors.New("cannot free")

// Allocation is what the runtime remembers of one live arena allocation:
// where it came from, to name the variable behind an offset in errors, and
// where its pointer words lie, to check them.
type Allocation struct {
	Off, Size int       // its bytes in the arena: [Off, Off+Size)
	N         int       // number of elements
	Type      string    // the element type, as Go spells it
	Ptrs      []PtrWord // the pointer words of one element, by offset
	Where     string    // file:line of the allocating call in the user's program
	Vars      *Vars     // where the variables of one element start; nil: every byte is one
}

// Table is the set of live allocations. The zero Table is empty and ready
// to use; it is safe for concurrent use.
type Table struct {
	mu sync.Mutex
	// mu protects the following fields.
	all        []*Allocation // live allocations, by offset
	pointerful []*Allocation // the live allocations whose type has pointer words, by offset
}

// Add records a, a new live allocation that overlaps none of the table's.
func (t *Table) Add(a *Allocation) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.all = insertByOff(t.all, a)
	if len(a.Ptrs) > 0 {
		t.pointerful = insertByOff(t.pointerful, a)
	}
}

func insertByOff(list []*Allocation, a *Allocation) []*Allocation {
	i := sort.Search(len(list), func(i int) bool { return list[i].Off > a.Off })
	return slices.Insert(list, i, a)
}

// Remove forgets and returns the live allocation that starts at off, or
// returns nil.
func (t *Table) Remove(off int) *Allocation {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.remove(off)
}

func (t *Table) remove(off int) *Allocation {
	i, ok := findByOff(t.all, off)
	if !ok {
		return nil
	}
	a := t.all[i]
	t.all = slices.Delete(t.all, i, i+1)
	if j, ok := findByOff(t.pointerful, off); ok {
		t.pointerful = slices.Delete(t.pointerful, j, j+1)
	}
	return a
}

func findByOff(list []*Allocation, off int) (int, bool) {
	i := sort.Search(len(list), func(i int) bool { return list[i].Off >= off })
	return i, i < len(list) && list[i].Off == off
}

// Release forgets the allocation that starts at off and gives its memory
// back with free (the arena's Free); what is how the program's value is
// spelled (its Go type), for the errors. It refuses, with an error wrapping
// ErrFree, an offset where no live allocation starts (inside one, or freed
// already), and, keeping the allocation, one that free refuses.
func (t *Table) Release(off int, what string, free func(off int) error) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	a := t.remove(off)
	if a == nil {
		if in := t.describe(off); in != "" {
			return fmt.Errorf("%w a %s starting at %s: it does not start its allocation (free what cape.Make or cape.New returned)", ErrFree, what, in)
		}
		return fmt.Errorf("%w the %s at arena offset %#x: no live allocation starts there (freed already)", ErrFree, what, off)
	}
	if err := free(off); err != nil {
		t.all = insertByOff(t.all, a)
		if len(a.Ptrs) > 0 {
			t.pointerful = insertByOff(t.pointerful, a)
		}
		return fmt.Errorf("%w the %s allocated at %s: %w", ErrFree, a.Type, a.Where, err)
	}
	return nil
}

// Describe names the arena byte at off: the allocation and element holding
// it ("element [3].Rows of the []main.grid allocated at main.go:12"), or ""
// if no live allocation holds it.
func (t *Table) Describe(off int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.describe(off)
}

func (t *Table) describe(off int) string {
	all := t.all
	i := sort.Search(len(all), func(i int) bool { return all[i].Off+all[i].Size > off })
	if i == len(all) || off < all[i].Off {
		return ""
	}
	a := all[i]
	return a.element((off-a.Off)/max(a.Size/max(a.N, 1), 1), "")
}

// AllocationAt returns the bytes [start, end) of the last live allocation
// that starts at or before off, and false if none does.
func (t *Table) AllocationAt(off int) (start, end int, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := sort.Search(len(t.all), func(i int) bool { return t.all[i].Off > off }) - 1
	if i < 0 {
		return 0, 0, false
	}
	return t.all[i].Off, t.all[i].Off + t.all[i].Size, true
}

// Pointerful returns the number of live allocations whose type has pointer
// words: those CheckPointers reads.
func (t *Table) Pointerful() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.pointerful)
}

// element names element i of a, and the word at path inside it:
// "element [3].Rows of the []main.grid allocated at main.go:12".
func (a *Allocation) element(i int, path string) string {
	if a.N > 1 {
		return fmt.Sprintf("element [%d]%s of the []%s allocated at %s", i, path, a.Type, a.Where)
	}
	switch {
	case strings.HasPrefix(path, "."):
		return fmt.Sprintf("field %s of the %s allocated at %s", path[1:], a.Type, a.Where)
	case path != "":
		return fmt.Sprintf("element %s of the %s allocated at %s", path, a.Type, a.Where)
	}
	return fmt.Sprintf("the %s allocated at %s", a.Type, a.Where)
}

// Heaviest returns the call site (Allocation.Where) whose live allocations
// hold the most bytes, with their number and bytes; where is "" if the
// table is empty.
func (t *Table) Heaviest() (where string, count, bytes int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	type site struct{ count, bytes int }
	sites := map[string]*site{}
	for _, a := range t.all {
		s := sites[a.Where]
		if s == nil {
			s = &site{}
			sites[a.Where] = s
		}
		s.count++
		s.bytes += a.Size
	}
	for w, s := range sites {
		if s.bytes > bytes || s.bytes == bytes && w < where {
			where, count, bytes = w, s.count, s.bytes
		}
	}
	return where, count, bytes
}
