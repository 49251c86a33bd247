//go:build linux

package monitor

import (
	"fmt"
	"slices"
	"testing"
)

// BenchmarkIdleArena measures a region that writes a fixed small set of
// pages (idleHotWritten of the first idleHotPages) with idle memory behind
// it: pages written once, long ago, and never since, as the buffers a
// leaking time-step loop leaves behind. The region's cost must not grow
// with the idle memory: compare the sub-benchmarks (10 MB and 500 MB).
// Regions like the measured ones run first, not measured, so that the idle
// memory has turned cold. Each Stop must report exactly the pages written.
//
// hint=none gives the tracker no hint; hint=bounded says that each region
// writes only the first idleHotPages pages (cape.WritesIn), with stretches
// between regions never proven clean, as in a time-step loop that
// allocates a buffer per step.
func BenchmarkIdleArena(b *testing.B) {
	for _, bounded := range []bool{false, true} {
		for _, idle := range []int{10 << 20, 500 << 20} {
			name := fmt.Sprintf("hint=none/idle=%dMB", idle>>20)
			if bounded {
				name = fmt.Sprintf("hint=bounded/idle=%dMB", idle>>20)
			}
			b.Run(name, func(b *testing.B) { benchIdle(b, idle, bounded) })
		}
	}
}

const (
	idleHotPages   = 64
	idleHotWritten = 16
	idleWarmup     = 300
)

func benchIdle(b *testing.B, idle int, bounded bool) {
	mem := mapArena(b, 1<<30)
	tr := newOrSkip(b, BackendUffd, mem)
	ps := tr.PageSize()
	extent := idleHotPages*ps + idle
	want := make([]int, idleHotWritten)
	for i := range want {
		want[i] = i * (idleHotPages / idleHotWritten)
	}
	h, hinter := tr.(Hinter)
	region := func(k int, write func()) {
		if hinter && bounded && k >= 0 {
			h.SetHint(Hint{Bounded: true, Writes: []Span{{Off: 0, Len: idleHotPages * ps}}})
		}
		if err := tr.Start(extent); err != nil {
			b.Fatal(err)
		}
		write()
		got, err := tr.Stop()
		if err != nil {
			b.Fatal(err)
		}
		if k >= 0 && !slices.Equal(got, want) {
			b.Fatalf("region %d: Stop = %d pages %v, want %v", k, len(got), got[:min(len(got), 20)], want)
		}
	}
	hot := func(k int) func() {
		return func() {
			for _, p := range want {
				mem[p*ps+k%ps]++
			}
		}
	}
	// The idle memory is written once, in a region, then left alone.
	region(-1, func() {
		for off := idleHotPages * ps; off < extent; off += ps {
			mem[off] = 1
		}
	})
	for k := range idleWarmup {
		region(k, hot(k))
	}
	b.ReportAllocs()
	k := idleWarmup
	for b.Loop() {
		region(k, hot(k))
		k++
	}
}
