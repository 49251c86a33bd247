package cape

// The arena as package durable's check of a restored image sees it.

import (
	"reflect"

	"github.com/cape-go/cape/cape/internal/durable"
)

// layout is the arena an image is restored into, with its live
// allocations (allocs.go).
func (n *node) layout() durable.Layout {
	return durable.Layout{Base: n.arena.Addr(), Used: n.arena.Used(), Allocs: &allocTable}
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
