package cape

import (
	"reflect"

	"github.com/cape-go/cape/cape/internal/allocs"
)

// allocTable is the arena's live allocations, as package allocs records
// them: made by Alloc, forgotten by Free.
var allocTable allocs.Table

// describe names the arena byte at off: the allocation and element holding
// it, or "" if no live allocation holds it.
func describe(off int) string { return allocTable.Describe(off) }

// checkPointers returns an error naming the first pointer word of a live
// allocation that is neither nil nor a pointer into mem, the arena.
func checkPointers(mem []byte) error { return allocTable.CheckPointers(mem) }

// pointerWords returns the pointer words of t, or an error naming what in t
// the arena cannot hold.
func pointerWords(t reflect.Type) ([]allocs.PtrWord, error) { return allocs.PointerWords(t) }

// pointerFree returns an error naming where t holds a pointer, or nil.
func pointerFree(t reflect.Type) error { return allocs.PointerFree(t) }
