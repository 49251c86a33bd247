package allocs

import (
	"fmt"
	"reflect"
)

// PtrWord is a pointer word of a type: a pointer, or a slice's data
// pointer.
type PtrWord struct {
	Off  uintptr // from the start of the value
	Path string  // how to reach it from the value: "", ".Rows", "[2].V"
}

// PointerWords returns the pointer words of t, in order of offset, or an
// error naming what in t the arena cannot hold.
func PointerWords(t reflect.Type) ([]PtrWord, error) {
	switch t.Kind() {
	case reflect.Pointer, reflect.UnsafePointer, reflect.Slice:
		return []PtrWord{{}}, nil
	case reflect.String, reflect.Map, reflect.Chan, reflect.Func, reflect.Interface:
		return nil, fmt.Errorf("%s is a %s", t, t.Kind())
	case reflect.Array:
		inner, err := PointerWords(t.Elem())
		if err != nil || len(inner) == 0 {
			return nil, err
		}
		var out []PtrWord
		for i := range t.Len() {
			for _, w := range inner {
				out = append(out, PtrWord{uintptr(i)*t.Elem().Size() + w.Off, fmt.Sprintf("[%d]%s", i, w.Path)})
			}
		}
		return out, nil
	case reflect.Struct:
		var out []PtrWord
		for i := range t.NumField() {
			f := t.Field(i)
			inner, err := PointerWords(f.Type)
			if err != nil {
				return nil, fmt.Errorf("field %s.%s: %w", t, f.Name, err)
			}
			for _, w := range inner {
				out = append(out, PtrWord{f.Offset + w.Off, "." + f.Name + w.Path})
			}
		}
		return out, nil
	}
	return nil, nil
}

// PointerFree returns an error naming where t holds a pointer, or what in t
// the arena cannot hold, or nil.
func PointerFree(t reflect.Type) error {
	words, err := PointerWords(t)
	if err != nil {
		return err
	}
	if len(words) > 0 {
		return fmt.Errorf("%s holds a pointer (at %q)", t, words[0].Path)
	}
	return nil
}
