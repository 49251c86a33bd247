package arena

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// allocFreeTrace runs a sequence of allocations and frees decided by ops on a
// fresh arena at base and returns the offsets handed out (a freed block as
// -1-offset), up to the first allocation that does not fit. It checks that
// live blocks never overlap, that every block handed out is zero, and that
// Free refuses what is not a live block.
func allocFreeTrace(t testing.TB, base uintptr, ops []byte) []int {
	a, err := Map(base, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ps := a.PageSize()
	type blk struct{ off, size int }
	var live []blk
	var trace []int
	for i := 0; i+1 < len(ops); i += 2 {
		op, arg := ops[i], int(ops[i+1])
		if op%3 == 0 && len(live) > 0 {
			k := arg % len(live)
			b := live[k]
			if err := a.Free(b.off); err != nil {
				t.Fatalf("op %d: Free(%#x): %v", i, b.off, err)
			}
			if err := a.Free(b.off); !errors.Is(err, ErrNotAllocated) {
				t.Fatalf("op %d: second Free(%#x) = %v, want ErrNotAllocated", i, b.off, err)
			}
			live = append(live[:k], live[k+1:]...)
			trace = append(trace, -1-b.off)
			continue
		}
		size := arg*arg + int(op)%7 // 0 .. 65031 bytes: small classes and page runs
		if op%5 == 1 {
			size = arg * ps / 4
		}
		off, err := a.Alloc(size, 8)
		if errors.Is(err, ErrExhausted) {
			return append(trace, -1<<62) // the same point on every run
		}
		if err != nil {
			t.Fatalf("op %d: Alloc(%d): %v", i, size, err)
		}
		trace = append(trace, off)
		if size == 0 {
			continue
		}
		mem := a.Bytes()[off : off+size]
		for j, c := range mem {
			if c != 0 {
				t.Fatalf("op %d: Alloc(%d) at %#x: byte %d is %#x, not zero", i, size, off, j, c)
			}
		}
		if size >= ps && off%ps != 0 {
			t.Fatalf("op %d: Alloc(%d) = %#x, not page-aligned", i, size, off)
		}
		for _, b := range live {
			if off < b.off+b.size && b.off < off+size {
				t.Fatalf("op %d: Alloc(%d) = [%#x, %#x) overlaps live [%#x, %#x)", i, size, off, off+size, b.off, b.off+b.size)
			}
		}
		for j := range mem {
			mem[j] = byte(op) | 1 // dirty it, so reuse must zero it
		}
		live = append(live, blk{off, size})
		if err := a.Free(off + 1); !errors.Is(err, ErrNotAllocated) {
			t.Fatalf("Free inside a block = %v, want ErrNotAllocated", err)
		}
	}
	return trace
}

// TestAllocFreeDeterministicAndReused runs the same random sequence of
// allocations and frees on two arenas: the offsets must be identical (every
// node computes the same addresses), and the allocator must reuse freed
// memory.
func TestAllocFreeDeterministicAndReused(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ops := make([]byte, 4000)
	for i := range ops {
		ops[i] = byte(rng.Uint32())
	}
	first := allocFreeTrace(t, Base+1<<40, ops)
	second := allocFreeTrace(t, Base+1<<40, ops)
	if len(first) != len(second) {
		t.Fatalf("traces of %d and %d steps", len(first), len(second))
	}
	seen := map[int]bool{}
	reused := 0
	for i := range first {
		if first[i] != second[i] {
			t.Fatalf("step %d: offset %#x then %#x: the allocator is not deterministic", i, first[i], second[i])
		}
		if off := first[i]; off >= 0 {
			if seen[off] {
				reused++
			}
			seen[off] = true
		}
	}
	if reused == 0 {
		t.Fatal("no freed block was ever handed out again")
	}
}

// TestFreeBoundsTimeStepping allocates a large block per step and frees
// the previous one, as a time-stepping loop does: the arena's extent must
// stay at two blocks, and adjacent free ranges must coalesce.
func TestFreeBoundsTimeStepping(t *testing.T) {
	a, err := Map(Base+4<<40, 256<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	const block = 8 << 20
	u, err := a.Alloc(block, 8)
	if err != nil {
		t.Fatal(err)
	}
	for step := range 100 {
		next, err := a.Alloc(block, 8)
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if err := a.Free(u); err != nil {
			t.Fatal(err)
		}
		u = next
	}
	if a.Used() > 2*block+a.PageSize() {
		t.Fatalf("extent %d after 100 steps of one %d-byte block live, want at most two blocks", a.Used(), block)
	}
	// Coalescing: two adjacent freed ranges hold one allocation of both.
	x, _ := a.Alloc(3*a.PageSize(), 8)
	y, _ := a.Alloc(5*a.PageSize(), 8)
	top := a.Used()
	if err := a.Free(x); err != nil {
		t.Fatal(err)
	}
	if err := a.Free(y); err != nil {
		t.Fatal(err)
	}
	if z, err := a.Alloc(8*a.PageSize(), 8); err != nil || z != min(x, y) || a.Used() != top {
		t.Fatalf("8 pages after freeing 3+5 adjacent pages at %#x: got %#x, %v (extent %d → %d)", min(x, y), z, err, top, a.Used())
	}
}

func TestFreeRefusedInRegion(t *testing.T) {
	a, err := Map(Base+5<<40, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	off, err := a.Alloc(100, 8)
	if err != nil {
		t.Fatal(err)
	}
	a.Freeze(true)
	if err := a.Free(off); !errors.Is(err, ErrFrozen) {
		t.Fatalf("Free while frozen = %v, want ErrFrozen", err)
	}
	a.Freeze(false)
	if err := a.Free(off); err != nil {
		t.Fatal(err)
	}
}
