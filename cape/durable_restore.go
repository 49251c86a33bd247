package cape

// The arena as package durable's check of a restored image sees it.

import (
	"reflect"
	"sort"

	"github.com/cape-go/cape/cape/internal/durable"
)

// layout is the arena an image is restored into, with its live
// allocations.
func (n *node) layout() durable.Layout {
	return durable.Layout{Base: n.arena.Addr(), Used: n.arena.Used(), Allocs: liveAllocs{}}
}

// liveAllocs looks up the arena's live allocations (allocs).
type liveAllocs struct{}

func (liveAllocs) AllocationAt(off int) (start, end int, ok bool) {
	allocMu.Lock()
	defer allocMu.Unlock()
	i := sort.Search(len(allocs), func(i int) bool { return allocs[i].off > off }) - 1
	if i < 0 {
		return 0, 0, false
	}
	return allocs[i].off, allocs[i].off + allocs[i].size, true
}

// varTypes are the types of the variables a checkpoint point names (vars
// holds pointers to them).
func varTypes(vars []any) []reflect.Type {
	ts := make([]reflect.Type, len(vars))
	for i, v := range vars {
		ts[i] = reflect.TypeOf(v).Elem()
	}
	return ts
}
