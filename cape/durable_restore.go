package cape

// The check of a restored image's variables: what a //cape:checkpoint image
// holds for the point's variables is copied into them, so every pointer in
// it must be one the live program could hold there.

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"sort"
)

// checkRestored checks, before anything is written, the bytes an image
// holds for the variables vars points to (in order, concatenated in img,
// whose length the caller checked): every pointer in them must be nil or
// point into a live arena allocation, with the value it points to, or a
// slice's capacity of elements, inside that allocation, and a slice's
// length at most its capacity (Checkpoint checked the same of the live
// variables when the image was saved). A log altered after the fact (its
// CRC-32C is no MAC) could otherwise make the program write anywhere in its
// memory. The error names the variable by its place in the directive.
func checkRestored(n *node, vars []any, img []byte) error {
	off := 0
	for i, v := range vars {
		t := reflect.TypeOf(v).Elem()
		size := int(t.Size())
		if off+size > len(img) {
			return fmt.Errorf("variable %d (%s): the image holds %d bytes of variables", i+1, t, len(img))
		}
		if err := checkValue(n, t, img[off:off+size], ""); err != nil {
			return fmt.Errorf("variable %d (%s): %w", i+1, t, err)
		}
		off += size
	}
	return nil
}

// checkValue checks the pointers of a value of type t held in b; path names
// the part of the variable it is ("", ".Rows", "[2]").
func checkValue(n *node, t reflect.Type, b []byte, path string) error {
	word := func(o uintptr) uintptr { return uintptr(binary.LittleEndian.Uint64(b[o:])) }
	switch t.Kind() {
	case reflect.Pointer:
		return inAllocation(n, word(0), t.Elem().Size(), path)
	case reflect.UnsafePointer:
		return inAllocation(n, word(0), 0, path)
	case reflect.Slice:
		p, l, c := word(0), word(8), word(16)
		es := t.Elem().Size()
		switch {
		case l > c:
			return fmt.Errorf("the image's slice%s has length %d over its capacity %d", at(path), l, c)
		case p == 0 && c != 0:
			return fmt.Errorf("the image's slice%s has no elements but a capacity of %d", at(path), c)
		case es != 0 && c > math.MaxInt/es:
			return fmt.Errorf("the image's slice%s has a capacity of %d", at(path), c)
		}
		return inAllocation(n, p, c*es, path)
	case reflect.Array:
		words, err := pointerWords(t.Elem())
		if err != nil || len(words) == 0 {
			return err
		}
		es := t.Elem().Size()
		for i := range uintptr(t.Len()) {
			if err := checkValue(n, t.Elem(), b[i*es:(i+1)*es], fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if err := checkValue(n, f.Type, b[f.Offset:f.Offset+f.Type.Size()], path+"."+f.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

func at(path string) string {
	if path == "" {
		return ""
	}
	return " " + path
}

// inAllocation checks that the size bytes at address p (nil, or a pointer
// to them) lie in one live arena allocation.
func inAllocation(n *node, p, size uintptr, path string) error {
	if p == 0 {
		return nil
	}
	base := n.arena.Addr()
	extent := uintptr(n.arena.Used())
	if p < base || p-base > extent || size > extent-(p-base) {
		return fmt.Errorf("the image's pointer%s (%#x, %d bytes) points outside the CAPE arena (%#x, %d bytes in use): the log was altered, or is not this program's; refused before anything is restored",
			at(path), p, size, base, extent)
	}
	off := int(p - base)
	allocMu.Lock()
	defer allocMu.Unlock()
	i := sort.Search(len(allocs), func(i int) bool { return allocs[i].off > off }) - 1
	if i < 0 || off+int(size) > allocs[i].off+allocs[i].size || (size > 0 && off >= allocs[i].off+allocs[i].size) {
		return fmt.Errorf("the image's pointer%s (%#x, %d bytes) points past the arena allocation that holds it: the log was altered, or is not this program's; refused before anything is restored", at(path), p, size)
	}
	return nil
}
