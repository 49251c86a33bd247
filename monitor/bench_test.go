//go:build unix

package monitor

import (
	"fmt"
	"testing"
	"time"
)

// benchBackends are the backends measured; unsupported ones are skipped.
var benchBackends = []string{BackendUffd, BackendCompare, BackendComplete, BackendPtrace}

// BenchmarkStartStop measures one region on a 256 MiB extent: Start, one
// byte written on the given fraction of its pages (evenly spread), Stop.
// ns/dirty-page divides the region's time by the pages written.
func BenchmarkStartStop(b *testing.B) {
	const extent = 256 << 20
	for _, backend := range benchBackends {
		for _, pct := range []int{0, 1, 10, 100} {
			b.Run(fmt.Sprintf("%s/dirty=%d%%", backend, pct), func(b *testing.B) {
				mem := mapArena(b, extent)
				tr := newOrSkip(b, backend, mem)
				ps := tr.PageSize()
				pages := extent / ps
				for i := 0; i < len(mem); i += ps {
					mem[i] = 1 // populate: a real arena is in use
				}
				dirty := pages * pct / 100
				stride := 1
				if dirty > 0 {
					stride = pages / dirty
				}
				// Warm up: the first Start populates the twin.
				if err := tr.Start(extent); err != nil {
					b.Fatal(err)
				}
				if _, err := tr.Stop(); err != nil {
					b.Fatal(err)
				}
				b.SetBytes(extent)
				b.ReportAllocs()
				for b.Loop() {
					if err := tr.Start(extent); err != nil {
						b.Fatal(err)
					}
					for p := 0; p < dirty; p++ {
						mem[p*stride*ps+8]++
					}
					if _, err := tr.Stop(); err != nil {
						b.Fatal(err)
					}
				}
				if dirty > 0 {
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(dirty), "ns/dirty-page")
				}
			})
		}
	}
}

// BenchmarkDenseLoop runs a loop that writes every word of a 64 MiB array,
// once unmonitored and once inside a region, and reports the ratio of the
// region's time (Start, loop, Stop) to the plain loop's.
func BenchmarkDenseLoop(b *testing.B) {
	const size = 64 << 20
	for _, backend := range benchBackends {
		b.Run(backend, func(b *testing.B) {
			mem := mapArena(b, size)
			tr := newOrSkip(b, backend, mem)
			loop := func() {
				for i := 0; i < len(mem); i += 8 {
					mem[i] += byte(i)
					mem[i+1]++
				}
			}
			loop()
			var plain, monitored time.Duration
			for b.Loop() {
				t0 := time.Now()
				loop()
				t1 := time.Now()
				if err := tr.Start(size); err != nil {
					b.Fatal(err)
				}
				loop()
				if _, err := tr.Stop(); err != nil {
					b.Fatal(err)
				}
				plain += t1.Sub(t0)
				monitored += time.Since(t1)
			}
			b.ReportMetric(float64(plain.Nanoseconds())/float64(b.N), "ns/plain")
			b.ReportMetric(float64(monitored.Nanoseconds())/float64(b.N), "ns/monitored")
			b.ReportMetric(float64(monitored)/float64(plain), "ratio")
		})
	}
}
