package allocs

import (
	"encoding/binary"
	"reflect"
	"strings"
	"testing"
)

func TestCheckPointers(t *testing.T) {
	mem := make([]byte, 0x300)
	lo := reflect.ValueOf(mem).Pointer()
	hi := lo + uintptr(len(mem))
	heap := new(int64)
	out := reflect.ValueOf(heap).Pointer()
	tests := []struct {
		name string
		at   int     // the word written
		v    uintptr // its value
		want string  // a substring of the error, "" for none
	}{
		{name: "nil", at: 0x200, v: 0},
		{name: "into the arena", at: 0x220, v: lo + 0x40},
		{name: "the arena's start", at: 0x240, v: lo},
		{name: "the arena's end", at: 0x100, v: hi},
		{name: "past the end", at: 0x100, v: hi + 1, want: "field V of the allocs.row allocated at m.go:2 holds a pointer outside the CAPE arena"},
		{name: "below", at: 0x200, v: lo - 8, want: "element [0].V of the []allocs.row allocated at m.go:3"},
		{name: "Go heap", at: 0x240, v: out, want: "element [2].V of the []allocs.row allocated at m.go:3"},
		{name: "not a pointer word", at: 0x208, v: out},       // row.X
		{name: "a pointer-free allocation", at: 0x40, v: out}, // the []int64
	}
	for _, tt := range tests {
		clear(mem)
		binary.NativeEndian.PutUint64(mem[tt.at:], uint64(tt.v))
		err := testTable().CheckPointers(mem)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
}

func TestStray(t *testing.T) {
	words, _ := PointerWords(reflect.TypeFor[grid]())
	const lo, hi = 0x1000, 0x2000
	tests := []struct {
		name string
		set  map[uintptr]uint64 // words written, by offset
		want string             // the stray word's path, "" for none
	}{
		{name: "zero", set: nil},
		{name: "inside", set: map[uintptr]uint64{8: lo, 40: 0x1800, 72: hi}},
		{name: "a number", set: map[uintptr]uint64{0: 7, 16: 9}},
		{name: "second row", set: map[uintptr]uint64{8: lo, 40: hi + 1}, want: ".Rows[1].V"},
		{name: "first of two", set: map[uintptr]uint64{40: 1, 72: 2}, want: ".Rows[1].V"},
		{name: "pointer", set: map[uintptr]uint64{72: lo - 1}, want: ".P"},
	}
	for _, tt := range tests {
		b := make([]byte, reflect.TypeFor[grid]().Size())
		for off, v := range tt.set {
			binary.NativeEndian.PutUint64(b[off:], v)
		}
		w, bad := Stray(b, words, lo, hi)
		got := ""
		if bad {
			got = w.Path
			if got == "" {
				got = "(the value)"
			}
		}
		if got != tt.want {
			t.Errorf("%s: Stray = %q, want %q", tt.name, got, tt.want)
		}
	}
}
