package allocs

import (
	"errors"
	"reflect"
	"slices"
	"testing"
)

// testTable holds, by offset: 4 int64s at 0x40 (a slice), one row at
// 0x100 (a New'd struct with a pointer word), 3 rows at 0x200 (a slice of
// structs with pointer words); nothing in [0x60, 0x100) nor past 0x248.
func testTable() *Table {
	t := &Table{}
	rowWords, _ := PointerWords(reflect.TypeFor[row]())
	// Added out of order: the table sorts them.
	t.Add(&Allocation{Off: 0x200, Size: 3 * 32, N: 3, Type: "allocs.row", Ptrs: rowWords, Where: "m.go:3"})
	t.Add(&Allocation{Off: 0x40, Size: 32, N: 4, Type: "int64", Where: "m.go:1"})
	t.Add(&Allocation{Off: 0x100, Size: 32, N: 1, Type: "allocs.row", Ptrs: rowWords, Where: "m.go:2"})
	return t
}

func TestDescribe(t *testing.T) {
	tab := testTable()
	tests := []struct {
		off  int
		want string
	}{
		{0x00, ""},
		{0x40, "element [0] of the []int64 allocated at m.go:1"},
		{0x4f, "element [1] of the []int64 allocated at m.go:1"},
		{0x5f, "element [3] of the []int64 allocated at m.go:1"},
		{0x60, ""},
		{0x100, "the allocs.row allocated at m.go:2"},
		{0x11f, "the allocs.row allocated at m.go:2"},
		{0x120, ""},
		{0x200, "element [0] of the []allocs.row allocated at m.go:3"},
		{0x220, "element [1] of the []allocs.row allocated at m.go:3"},
		{0x25f, "element [2] of the []allocs.row allocated at m.go:3"},
		{0x260, ""},
	}
	for _, tt := range tests {
		if got := tab.Describe(tt.off); got != tt.want {
			t.Errorf("Describe(%#x) = %q, want %q", tt.off, got, tt.want)
		}
	}
}

func TestAllocationAt(t *testing.T) {
	tab := testTable()
	tests := []struct {
		off        int
		start, end int
		ok         bool
	}{
		{0x3f, 0, 0, false},
		{0x40, 0x40, 0x60, true},
		{0x80, 0x40, 0x60, true}, // past its end: the last one starting before
		{0x100, 0x100, 0x120, true},
		{0x1000, 0x200, 0x260, true},
	}
	for _, tt := range tests {
		start, end, ok := tab.AllocationAt(tt.off)
		if start != tt.start || end != tt.end || ok != tt.ok {
			t.Errorf("AllocationAt(%#x) = %#x, %#x, %v; want %#x, %#x, %v", tt.off, start, end, ok, tt.start, tt.end, tt.ok)
		}
	}
}

func TestRelease(t *testing.T) {
	refuse := errors.New("refused by the arena")
	tests := []struct {
		name       string
		offs       []int // released in order; the last one's error is checked
		free       error // what the arena's Free returns
		want       string
		pointerful int // the table's pointerful allocations afterwards
		freed      []int
	}{
		{name: "a slice", offs: []int{0x40}, pointerful: 2, freed: []int{0x40}},
		{name: "pointerful", offs: []int{0x200}, pointerful: 1, freed: []int{0x200}},
		{name: "twice", offs: []int{0x100, 0x100}, pointerful: 1, freed: []int{0x100},
			want: "cannot free the T at arena offset 0x100: no live allocation starts there (freed already)"},
		{name: "inside", offs: []int{0x48}, pointerful: 2,
			want: "cannot free a T starting at element [1] of the []int64 allocated at m.go:1: it does not start its allocation (free what cape.Make or cape.New returned)"},
		{name: "never allocated", offs: []int{0x80}, pointerful: 2,
			want: "cannot free the T at arena offset 0x80: no live allocation starts there (freed already)"},
		{name: "refused", offs: []int{0x200}, free: refuse, pointerful: 2,
			want: "cannot free the allocs.row allocated at m.go:3: refused by the arena"},
	}
	for _, tt := range tests {
		tab := testTable()
		var freed []int
		var err error
		for _, off := range tt.offs {
			err = tab.Release(off, "T", func(off int) error {
				if tt.free != nil {
					return tt.free
				}
				freed = append(freed, off)
				return nil
			})
		}
		got := ""
		if err != nil {
			got = err.Error()
			if !errors.Is(err, ErrFree) {
				t.Errorf("%s: %v does not wrap ErrFree", tt.name, err)
			}
		}
		if got != tt.want {
			t.Errorf("%s: Release = %q, want %q", tt.name, got, tt.want)
		}
		if tt.free != nil && !errors.Is(err, tt.free) {
			t.Errorf("%s: %v does not wrap the arena's error", tt.name, err)
		}
		if !reflect.DeepEqual(freed, tt.freed) {
			t.Errorf("%s: the arena freed %#x, want %#x", tt.name, freed, tt.freed)
		}
		if n := tab.Pointerful(); n != tt.pointerful {
			t.Errorf("%s: %d pointerful allocations left, want %d", tt.name, n, tt.pointerful)
		}
		// What is still live is still described; what was freed is not.
		for _, off := range []int{0x40, 0x100, 0x200} {
			live := !slices.Contains(tt.freed, off)
			if got := tab.Describe(off) != ""; got != live {
				t.Errorf("%s: Describe(%#x) live %v, want %v", tt.name, off, got, live)
			}
		}
	}
}

// TestHeaviest: the site whose live allocations hold the most bytes, once
// freed allocations are gone.
func TestHeaviest(t *testing.T) {
	var tb Table
	if w, _, _ := tb.Heaviest(); w != "" {
		t.Fatalf("empty table: %q", w)
	}
	tb.Add(&Allocation{Off: 0, Size: 100, N: 1, Where: "a.go:1"})
	for k := range 3 {
		tb.Add(&Allocation{Off: 1000 + 64*k, Size: 64, N: 8, Where: "b.go:2"})
	}
	if w, n, b := tb.Heaviest(); w != "b.go:2" || n != 3 || b != 192 {
		t.Errorf("Heaviest = %q, %d, %d; want b.go:2, 3, 192", w, n, b)
	}
	tb.Remove(1000)
	tb.Remove(1064)
	if w, n, b := tb.Heaviest(); w != "a.go:1" || n != 1 || b != 100 {
		t.Errorf("after freeing two: Heaviest = %q, %d, %d; want a.go:1, 1, 100", w, n, b)
	}
}

func TestStarts(t *testing.T) {
	type rec struct {
		A int32
		B int16
		C int8
	}
	var tab Table
	add := func(off, n int, typ reflect.Type) {
		tab.Add(&Allocation{Off: off, Size: n * int(typ.Size()), N: n, Type: typ.String(), Vars: VarsOf(typ)})
	}
	add(0, 16, reflect.TypeFor[byte]())
	add(16, 4, reflect.TypeFor[int64]())
	add(48, 4, reflect.TypeFor[int32]())
	add(64, 2, reflect.TypeFor[rec]())
	add(80, 2, reflect.TypeFor[[4]int16]())
	add(96, 1, reflect.TypeFor[complex128]())
	add(112, 1, reflect.TypeFor[struct{ X [2]int32 }]())
	for _, c := range []struct {
		off  uint64
		want uint8
	}{
		{0, 0xff},   // bytes
		{8, 0xff},   // bytes
		{16, 0x01},  // an int64
		{40, 0x01},  // the last int64
		{48, 0x11},  // int32s
		{64, 0xd1},  // A at 0, B at 4, C at 6, padding at 7
		{72, 0xd1},  // the second rec
		{80, 0x55},  // int16s in arrays
		{96, 0x01},  // a complex128's first word
		{104, 0x00}, // its second word
		{112, 0x11}, // an array field's elements
		{120, 0xff}, // past every allocation
		{44, 0x10},  // an int64's last half, then int32s
		{1 << 20, 0xff},
	} {
		if got := tab.Starts(c.off); got != c.want {
			t.Errorf("Starts(%d) = %08b, want %08b", c.off, got, c.want)
		}
	}
}
