//go:build linux

package monitor

import (
	"bytes"
	"fmt"
	"testing"
)

// Between is exact in every mode: every page whose content at a Start
// differs from its content at the previous Start may have changed, and so
// may every page written since the last Stop; where the regions are
// tracked by faults, a page nobody wrote has not.
func TestUffdBetween(t *testing.T) {
	for _, mode := range []uffdMode{uffdModeAdaptive, uffdModeFaults, uffdModeCompare, uffdModePlain, uffdModeAlternate} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			const pages = 64
			mem := mapArena(t, pages*4096)
			tr := newOrSkip(t, BackendUffd, mem)
			u := tr.(*uffdTracker)
			if u.pageSize != 4096 {
				t.Skipf("page size %d", u.pageSize)
			}
			u.mode = mode
			u.WatchBetween()
			ps := u.pageSize
			prev := append([]byte(nil), mem...)
			for i := range 12 {
				extent := len(mem) - (12-i)*ps // grows
				if err := tr.Start(extent); err != nil {
					t.Fatal(err)
				}
				if i > 0 {
					checkBetween(t, u, i, mem, prev)
				}
				prev = append(prev[:0], mem...)
				// The region changes page i and writes 10..13, the last
				// without changing it; the exchange changes page 20.
				mem[i*ps+i]++
				for p := 10; p < 14; p++ {
					mem[p*ps] += byte(p - 13)
				}
				if _, err := tr.Stop(); err != nil {
					t.Fatal(err)
				}
				mem[20*ps+i]++
				// Sequential code changes 30+i%4 and 50 (past the extent
				// at first), and rewrites 12.
				mem[(30+i%4)*ps+1]++
				mem[50*ps+2]++
				mem[12*ps+3]++
				// It writes 40 and restores it.
				mem[40*ps+5]++
				mem[40*ps+5]--
			}
		})
	}
}

// checkBetween checks the Between of region i's Start against the content
// of mem at the previous Start.
func checkBetween(t *testing.T, u *uffdTracker, i int, mem, prev []byte) {
	t.Helper()
	b := u.Between()
	if b.Starts != u.starts {
		t.Fatalf("region %d: Between.Starts %d, want %d", i, b.Starts, u.starts)
	}
	ps := u.pageSize
	for p := range len(mem) / ps {
		if !bytes.Equal(mem[p*ps:(p+1)*ps], prev[p*ps:(p+1)*ps]) && !b.MayHaveChanged(p) {
			t.Fatalf("region %d (%v): page %d changed, Between says it did not", i, u.kind, p)
		}
	}
	if !b.MayHaveChanged(40) {
		t.Errorf("region %d (%v): page 40, written since the last Stop, may not have changed", i, u.kind)
	}
	if u.mode == uffdModeFaults && b.MayHaveChanged(25) {
		t.Errorf("region %d (%v): page 25, never written, may have changed", i, u.kind)
	}
}
