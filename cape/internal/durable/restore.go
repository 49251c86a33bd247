package durable

// The checks of an image before it is restored: its sizes, and the
// pointers its variables hold. What a //cape:checkpoint image holds for the
// point's variables is copied into them, so every pointer in it must be one
// the live program could hold there.

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"

	"github.com/cape-go/cape/internal/ckptlog"
)

// Allocations are the arena's live allocations, as the image check sees
// them.
type Allocations interface {
	// AllocationAt returns the last live allocation that starts at or
	// before offset off of the arena, [start, end) (off may lie past
	// end), or ok false when none does.
	AllocationAt(off int) (start, end int, ok bool)
}

// Layout is the arena an image is restored into.
type Layout struct {
	Base   uintptr // the arena's address
	Used   int     // the bytes in use from Base
	Allocs Allocations
}

// CheckRestore checks, before anything is written, that image im fits the
// arena l and the point's variables, of types vars (in the directive's
// order): the image holds as many bytes of variables as they take and as
// many bytes of arena as are in use, and every pointer in its variables is
// nil or points into a live arena allocation, with the value it points to,
// or a slice's capacity of elements, inside that allocation, and a slice's
// length at most its capacity (the check a live point makes of its
// variables). A log altered after the fact (its CRC-32C is no MAC, and a
// key can leak) could otherwise make the program write anywhere in its
// memory. The error names a variable by its place in the directive.
func CheckRestore(im *ckptlog.Image, vars []reflect.Type, l Layout) error {
	nv := 0
	for _, t := range vars {
		nv += int(t.Size())
	}
	if nv != len(im.Vars) {
		return fmt.Errorf("the image holds %d bytes of variables, the point names %d", len(im.Vars), nv)
	}
	if len(im.Memory) != l.Used {
		return fmt.Errorf("the image holds %d bytes of arena, %d are in use", len(im.Memory), l.Used)
	}
	off := 0
	for i, t := range vars {
		size := int(t.Size())
		if err := l.checkValue(t, im.Vars[off:off+size], ""); err != nil {
			return fmt.Errorf("variable %d (%s): %w", i+1, t, err)
		}
		off += size
	}
	return nil
}

// checkValue checks the pointers of a value of type t held in b; path names
// the part of the variable it is ("", ".Rows", "[2]").
func (l Layout) checkValue(t reflect.Type, b []byte, path string) error {
	word := func(o uintptr) uintptr { return uintptr(binary.LittleEndian.Uint64(b[o:])) }
	switch t.Kind() {
	case reflect.Pointer:
		return l.inAllocation(word(0), t.Elem().Size(), path)
	case reflect.UnsafePointer:
		return l.inAllocation(word(0), 0, path)
	case reflect.Slice:
		p, n, c := word(0), word(8), word(16)
		es := t.Elem().Size()
		switch {
		case n > c:
			return fmt.Errorf("the image's slice%s has length %d over its capacity %d", at(path), n, c)
		case p == 0 && c != 0:
			return fmt.Errorf("the image's slice%s has no elements but a capacity of %d", at(path), c)
		case es != 0 && c > math.MaxInt/es:
			return fmt.Errorf("the image's slice%s has a capacity of %d", at(path), c)
		}
		return l.inAllocation(p, c*es, path)
	case reflect.Array:
		if pointerFree(t.Elem()) {
			return nil
		}
		es := t.Elem().Size()
		for i := range uintptr(t.Len()) {
			if err := l.checkValue(t.Elem(), b[i*es:(i+1)*es], fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if err := l.checkValue(f.Type, b[f.Offset:f.Offset+f.Type.Size()], path+"."+f.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

// pointerFree reports whether a value of type t holds no word checkValue
// checks.
func pointerFree(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.UnsafePointer, reflect.Slice:
		return false
	case reflect.Array:
		return t.Len() == 0 || pointerFree(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !pointerFree(t.Field(i).Type) {
				return false
			}
		}
	}
	return true
}

func at(path string) string {
	if path == "" {
		return ""
	}
	return " " + path
}

// inAllocation checks that the size bytes at address p (nil, or a pointer
// to them) lie in one live arena allocation.
func (l Layout) inAllocation(p, size uintptr, path string) error {
	if p == 0 {
		return nil
	}
	extent := uintptr(l.Used)
	if p < l.Base || p-l.Base > extent || size > extent-(p-l.Base) {
		return fmt.Errorf("the image's pointer%s (%#x, %d bytes) points outside the CAPE arena (%#x, %d bytes in use): the log was altered, or is not this program's; refused before anything is restored",
			at(path), p, size, l.Base, extent)
	}
	off := int(p - l.Base)
	_, end, ok := l.Allocs.AllocationAt(off)
	if !ok || off+int(size) > end || (size > 0 && off >= end) {
		return fmt.Errorf("the image's pointer%s (%#x, %d bytes) points past the arena allocation that holds it: the log was altered, or is not this program's; refused before anything is restored", at(path), p, size)
	}
	return nil
}

// Restore writes image im, once CheckRestore accepts it for the point's
// variables (of types types) and the arena l, into mem (the arena from its
// start), has check verify the arena it wrote (the pointers its
// allocations hold), then writes the image's variables into vars (their
// bytes, in the directive's order).
func Restore(im *ckptlog.Image, types []reflect.Type, vars [][]byte, mem []byte, l Layout, check func([]byte) error) error {
	if err := CheckRestore(im, types, l); err != nil {
		return err
	}
	copy(mem, im.Memory)
	if err := check(mem); err != nil {
		return fmt.Errorf("the image's arena: %w", err)
	}
	rest := im.Vars
	for _, v := range vars {
		copy(v, rest[:len(v)])
		rest = rest[len(v):]
	}
	return nil
}
