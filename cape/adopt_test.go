package cape

import (
	"reflect"
	"strings"
	"testing"

	"github.com/cape-go/cape/cape/internal/allocs"
	"github.com/cape-go/cape/internal/arena"
)

type adoptRow struct {
	V    float64
	Next *adoptRow
}

// TestAdoptAllocations takes an image's allocator state and allocations
// into another arena: the layouts come from the program's own types (a
// pointer word where the type has one), and an image naming a type the
// program has not allocated, or an allocation outside the state's live
// blocks, is refused saying which.
func TestAdoptAllocations(t *testing.T) {
	src, err := arena.Map(arena.Base+10<<40, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := arena.Map(arena.Base+11<<40, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	noteType(reflect.TypeFor[float64]())
	noteType(reflect.TypeFor[adoptRow]())
	x, _ := src.Alloc(8*600, 8)
	y, _ := src.Alloc(16*3, 8)
	var tab allocs.Table
	tab.Add(&allocs.Allocation{Off: x, N: 600, Size: 4800, Type: "float64", Where: "main.go:3"})
	tab.Add(&allocs.Allocation{Off: y, N: 3, Size: 48, Type: "cape.adoptRow", Where: "main.go:4"})
	state, table := src.AppendState(nil), tab.AppendEntries(nil)

	all, err := adoptAllocations(dst, state, table)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].Size != 4800 || len(all[0].Ptrs) != 0 || all[1].Size != 48 || len(all[1].Ptrs) != 1 || all[1].Ptrs[0].Off != 8 {
		t.Fatalf("adopted %+v %+v", *all[0], *all[1])
	}
	if dst.Used() != src.Used() {
		t.Fatalf("the arena's extent %d after adoption, want %d", dst.Used(), src.Used())
	}

	var other allocs.Table
	other.Add(&allocs.Allocation{Off: x, N: 600, Size: 4800, Type: "main.never", Where: "main.go:9"})
	if _, err := adoptAllocations(dst, state, other.AppendEntries(nil)); err == nil || !strings.Contains(err.Error(), "[]main.never allocated at main.go:9") {
		t.Fatalf("an image of a type never allocated: %v", err)
	}
	var big allocs.Table
	big.Add(&allocs.Allocation{Off: x, N: 6000, Size: 48000, Type: "float64", Where: "main.go:3"})
	if _, err := adoptAllocations(dst, state, big.AppendEntries(nil)); err == nil || !strings.Contains(err.Error(), "not inside a live block") {
		t.Fatalf("an allocation past its block: %v", err)
	}
	if _, err := adoptAllocations(dst, state[:len(state)-1], table); err == nil {
		t.Fatal("a torn allocator state was adopted")
	}
}
