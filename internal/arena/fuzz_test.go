package arena

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzParseSize checks ParseSize against the plain reading of its grammar:
// a positive decimal number, optionally followed by K, M, G or T (and an
// optional "B" or "iB"), at most 2^47 bytes; what it accepts prints back as
// a number that parses to the same size.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"4096", "512M", "16G", " 1t ", "2KiB", "0", "-1", "1.5G", "140737488355328", "140737488355329", "8I", "G"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			if !strings.Contains(err.Error(), "arena size") {
				t.Fatalf("%q: error %q does not say what it parsed", s, err)
			}
			return
		}
		if n <= 0 || n > 1<<47 {
			t.Fatalf("ParseSize(%q) = %d", s, n)
		}
		if again, err := ParseSize(strconv.Itoa(n)); err != nil || again != n {
			t.Fatalf("ParseSize(%q) = %d, which parses back as %d, %v", s, n, again, err)
		}
		// Reference: strip the unit by hand.
		u := strings.ToUpper(strings.TrimSpace(s))
		mult := 1
		for _, suf := range []struct {
			s string
			m int
		}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"TIB", 1 << 40}, {"KB", 1 << 10}, {"MB", 1 << 20},
			{"GB", 1 << 30}, {"TB", 1 << 40}, {"KI", 1 << 10}, {"MI", 1 << 20}, {"GI", 1 << 30}, {"TI", 1 << 40},
			{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"IB", 1}, {"B", 1}, {"I", 1}} {
			if strings.HasSuffix(u, suf.s) {
				u, mult = strings.TrimSuffix(u, suf.s), suf.m
				break
			}
		}
		v, err := strconv.ParseUint(u, 10, 63)
		if err != nil || int(v)*mult != n {
			t.Fatalf("ParseSize(%q) = %d; reference reads %q × %d (%v)", s, n, u, mult, err)
		}
	})
}

// FuzzAllocFree runs the sequence of allocations and frees the input
// describes twice: live blocks never overlap, handed-out memory is zero,
// Free refuses what is not a live block, and both runs give the same
// offsets.
func FuzzAllocFree(f *testing.F) {
	f.Add([]byte{1, 200, 0, 0, 6, 3, 1, 255, 3, 1, 4, 4})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 2000 {
			return
		}
		first := allocFreeTrace(t, Base+6<<40, ops)
		second := allocFreeTrace(t, Base+6<<40, ops)
		for i := range first {
			if first[i] != second[i] {
				t.Fatalf("step %d: offset %#x then %#x", i, first[i], second[i])
			}
		}
	})
}
