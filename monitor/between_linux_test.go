//go:build linux

package monitor

import (
	"bytes"
	"fmt"
	"testing"
)

// Between is exact in every mode: after a Watch of some pages, every page
// whose content at the next Start differs from its content at the Watch
// (watched pages) or at the previous Start (the others) may have changed;
// and a watched page nobody wrote has not, where nothing else tracks it.
func TestUffdBetween(t *testing.T) {
	for _, mode := range []uffdMode{uffdModeAdaptive, uffdModeFaults, uffdModeCompare, uffdModePlain, uffdModeAlternate} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			const pages = 64
			mem := mapArena(t, pages*4096)
			tr := newOrSkip(t, BackendUffd, mem)
			u := tr.(*uffdTracker)
			u.mode = mode
			ps := tr.PageSize()
			if ps != 4096 {
				t.Skipf("page size %d", ps)
			}
			atStart := append([]byte(nil), mem...)
			for i := range 12 {
				if err := tr.Start(len(mem)); err != nil {
					t.Fatal(err)
				}
				if i > 0 {
					checkBetween(t, u, i, mem, atStart)
				}
				atStart = append(atStart[:0], mem...)
				// The region writes pages i and 10..13, the last without
				// changing it.
				mem[i*ps+i]++
				for p := 10; p < 14; p++ {
					mem[p*ps] = mem[p*ps] + byte(p-13)
				}
				if _, err := tr.Stop(); err != nil {
					t.Fatal(err)
				}
				// The exchange changes page 20, then the lacked pages
				// 20..40 are watched; sequential code writes 30+i%4 and
				// 50, and rewrites 12 (the region changed it).
				mem[20*ps+i]++
				watchedAt := append([]byte(nil), mem...)
				if err := u.Watch([][2]int{{20, 40}}); err != nil {
					t.Fatal(err)
				}
				mem[(30+i%4)*ps+1]++
				mem[50*ps+2]++
				mem[12*ps+3]++
				// Pages 20..39 are compared with their content at the Watch.
				copy(atStart[20*ps:40*ps], watchedAt[20*ps:40*ps])
			}
		})
	}
}

// checkBetween checks the Between of region i's Start against the content
// of mem at the last reference points (want).
func checkBetween(t *testing.T, u *uffdTracker, i int, mem, want []byte) {
	t.Helper()
	b := u.Between()
	if b.Starts != u.starts {
		t.Fatalf("region %d: Between.Starts %d, want %d", i, b.Starts, u.starts)
	}
	ps := u.pageSize
	for p := range len(mem) / ps {
		if !bytes.Equal(mem[p*ps:(p+1)*ps], want[p*ps:(p+1)*ps]) && !b.MayHaveChanged(p) {
			t.Fatalf("region %d (%v): page %d changed, Between says it did not", i, u.kind, p)
		}
	}
	if u.mode == uffdModePlain && b.MayHaveChanged(25) {
		t.Errorf("region %d: watched page 25, never written, may have changed", i)
	}
	if !b.MayHaveChanged(50) && b.tracked <= 50 && u.mode == uffdModePlain {
		t.Errorf("region %d: page 50, neither tracked nor watched, may not have changed", i)
	}
}
