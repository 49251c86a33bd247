package arena

import (
	"errors"
	"strings"
	"testing"
)

func TestAllocDeterministicAndAligned(t *testing.T) {
	offsets := func() []int {
		a, err := Map(Base+1<<40, 64<<20)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		var out []int
		for _, req := range [][2]int{{3, 1}, {8, 8}, {100, 4}, {5000, 8}, {1, 1}, {1 << 20, 8}, {24, 8}} {
			off, err := a.Alloc(req[0], req[1])
			if err != nil {
				t.Fatal(err)
			}
			if off%16 != 0 || off%req[1] != 0 {
				t.Errorf("Alloc(%d, %d) = %d: misaligned", req[0], req[1], off)
			}
			if req[0] >= a.PageSize() && off%a.PageSize() != 0 {
				t.Errorf("Alloc(%d) = %d: large allocation not page-aligned", req[0], off)
			}
			out = append(out, off)
		}
		if a.Used()%a.PageSize() != 0 || a.Used() < out[len(out)-1]+24 {
			t.Errorf("Used() = %d after allocating up to %d", a.Used(), out[len(out)-1]+24)
		}
		return out
	}
	first, second := offsets(), offsets()
	for i := range first {
		if first[i] != second[i] {
			t.Fatalf("allocation %d at %d then %d: the allocator is not deterministic", i, first[i], second[i])
		}
		if i > 0 && first[i] <= first[i-1] {
			t.Fatalf("allocation %d at %d overlaps the previous one at %d", i, first[i], first[i-1])
		}
	}
}

func TestExhaustedAndFrozen(t *testing.T) {
	a, err := Map(Base+3<<40, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Alloc(2<<20, 8); !errors.Is(err, ErrExhausted) || !strings.Contains(err.Error(), SizeEnv) {
		t.Fatalf("oversized allocation: got %v, want ErrExhausted naming %s", err, SizeEnv)
	}
	a.Freeze(true)
	if _, err := a.Alloc(8, 8); !errors.Is(err, ErrFrozen) {
		t.Fatalf("allocation while frozen: got %v, want ErrFrozen", err)
	}
	a.Freeze(false)
	if _, err := a.Alloc(8, 8); err != nil {
		t.Fatal(err)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int{"4096": 4096, "16K": 16 << 10, "512M": 512 << 20, "2g": 2 << 30, "1GiB": 1 << 30, "1T": 1 << 40} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-1", "lots", "1Q", "99999999T"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) succeeded", bad)
		}
	}
}
