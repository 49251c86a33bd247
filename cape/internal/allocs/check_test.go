package allocs

import (
	"encoding/binary"
	"fmt"
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
		case tt.want != "" && !strings.Contains(err.Error(), fmt.Sprintf("(%#x, Go heap memory)", tt.v)):
			t.Errorf("%s: %v, want the word's value %#x", tt.name, err, tt.v)
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

func TestVarBytes(t *testing.T) {
	mem := make([]int64, 8)
	lo := reflect.ValueOf(mem).Pointer()
	hi := lo + uintptr(len(mem))*8
	type rows struct {
		N int
		S []int64
	}
	var nilp *int64
	in, out := &rows{N: 1, S: mem[2:4]}, &rows{S: make([]int64, 2)}
	x, s := int64(5), "text"
	tests := []struct {
		name string
		vars []any
		want string // a substring of the error, "" for none
	}{
		{name: "none"},
		{name: "scalars and a slice into the arena", vars: []any{&x, in, &rows{}}},
		{name: "not a pointer", vars: []any{&x, x}, want: "variable 2: want a non-nil pointer, got int64"},
		{name: "nil pointer", vars: []any{nilp}, want: "variable 1: want a non-nil pointer, got *int64"},
		{name: "a type the arena refuses", vars: []any{&s}, want: "variable 1 (string): "},
		{name: "a slice on the Go heap", vars: []any{&x, &x, out}, want: "variable 3 (allocs.rows): .S points outside the arena"},
	}
	for _, tt := range tests {
		got, err := VarBytes(tt.vars, lo, hi)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: %v, want an error containing %q", tt.name, err, tt.want)
		case tt.want == "" && len(got) != len(tt.vars):
			t.Errorf("%s: %d variables' bytes, want %d", tt.name, len(got), len(tt.vars))
		}
	}
	// The bytes alias the variable.
	b, err := VarBytes([]any{&x}, lo, hi)
	if err != nil || len(b) != 1 || len(b[0]) != 8 {
		t.Fatalf("VarBytes(&x) = %v, %v", b, err)
	}
	binary.NativeEndian.PutUint64(b[0], 42)
	if x != 42 {
		t.Errorf("x = %d after writing its bytes, want 42", x)
	}
}
