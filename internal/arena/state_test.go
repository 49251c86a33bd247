package arena

import (
	"bytes"
	"testing"
)

// TestSetState moves one arena's allocator state into another that
// allocated differently (the restart of a program whose buffers rotate):
// both then encode the same state and hand out the same offsets, and what
// the second had handed out past the new extent reads zero.
func TestSetState(t *testing.T) {
	a, err := Map(Base+7<<40, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Map(Base+8<<40, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ps := a.PageSize()
	must := func(off int, err error) int {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return off
	}
	// a: u0, then next made and u0 freed, twice (the time-stepping idiom),
	// and a small block freed.
	u := must(a.Alloc(3*ps, 8))
	s := must(a.Alloc(40, 8))
	for range 2 {
		next := must(a.Alloc(3*ps, 8))
		if err := a.Free(u); err != nil {
			t.Fatal(err)
		}
		u = next
	}
	if err := a.Free(s); err != nil {
		t.Fatal(err)
	}
	// b: more memory, written.
	for range 4 {
		off := must(b.Alloc(5*ps, 8))
		for i := range 5 * ps {
			b.Bytes()[off+i] = 0xa5
		}
	}
	oldUsed := b.Used()
	want := a.AppendState(nil)
	if err := b.SetState(want); err != nil {
		t.Fatal(err)
	}
	if got := b.AppendState(nil); !bytes.Equal(got, want) {
		t.Fatalf("state after SetState\n%x\nwant\n%x", got, want)
	}
	if b.Used() != a.Used() {
		t.Fatalf("Used %d, want %d", b.Used(), a.Used())
	}
	for i := b.Used(); i < oldUsed; i++ {
		if b.Bytes()[i] != 0 {
			t.Fatalf("byte %#x past the new extent %#x is %#x, not zero", i, b.Used(), b.Bytes()[i])
		}
	}
	for _, size := range []int{40, 3 * ps, 100, 7 * ps} {
		x, y := must(a.Alloc(size, 8)), must(b.Alloc(size, 8))
		if x != y {
			t.Fatalf("Alloc(%d): %#x in the first arena, %#x in the second", size, x, y)
		}
	}
	if err := b.Free(u); err != nil {
		t.Fatalf("free the block the state says is live: %v", err)
	}

	bad := map[string][]byte{
		"short":            want[:len(want)-3],
		"trailing":         append(bytes.Clone(want), 0, 0, 0, 0, 0, 0, 0, 0),
		"extent too large": append(le64(uint64(b.Size())+1), want[8:]...),
		"overlap":          append(le64(uint64(4*ps)), le64(2, 0, uint64(2*ps), uint64(ps), uint64(2*ps), 0, 0)...),
		"outside":          append(le64(uint64(ps)), le64(1, 0, uint64(2*ps), 0, 0)...),
		"not a class":      append(le64(uint64(ps)), le64(0, 1, 17, 1, 0, 0)...),
		"span unaligned":   append(le64(uint64(4*ps)), le64(0, 0, 1, 16, uint64(ps))...),
	}
	before := b.AppendState(nil)
	for name, enc := range bad {
		if err := b.SetState(enc); err == nil {
			t.Errorf("%s: SetState accepted %x", name, enc)
		}
		if got := b.AppendState(nil); !bytes.Equal(got, before) {
			t.Fatalf("%s: a refused state changed the allocator", name)
		}
	}
}

func le64(vs ...uint64) []byte {
	var b []byte
	for _, v := range vs {
		b = append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24), byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56))
	}
	return b
}

// FuzzSetState checks that SetState either refuses an encoding, changing
// nothing, or takes it so that its own encoding is accepted again unchanged
// and what it then hands out overlaps no live block.
func FuzzSetState(f *testing.F) {
	f.Add(le64(8192, 1, 0, 4096, 1, 48, 1, 4096, 0))
	f.Add(le64(8192, 0, 0, 1, 0, 8192))
	f.Fuzz(func(t *testing.T, enc []byte) {
		a, err := Map(Base+9<<40, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		before := a.AppendState(nil)
		if err := a.SetState(enc); err != nil {
			if !bytes.Equal(a.AppendState(nil), before) {
				t.Fatalf("refused %x (%v), yet the state changed", enc, err)
			}
			return
		}
		got := a.AppendState(nil)
		if err := a.SetState(got); err != nil || !bytes.Equal(a.AppendState(nil), got) {
			t.Fatalf("accepted %x, whose own encoding %x is refused (%v) or changes", enc, got, err)
		}
		live := map[int]int{}
		for off, size := range a.live {
			live[off] = size
		}
		for _, size := range []int{16, 48, 200, a.PageSize(), 3 * a.PageSize()} {
			off, err := a.Alloc(size, 8)
			if err != nil {
				continue
			}
			for lo, n := range live {
				if off < lo+n && lo < off+size {
					t.Fatalf("after %x: Alloc(%d) = %#x overlaps the live block [%#x, +%d)", enc, size, off, lo, n)
				}
			}
			live[off] = size
		}
	})
}
