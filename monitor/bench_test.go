//go:build unix

package monitor

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/cape-go/cape/internal/testenv"
)

// A benchConfig is one backend, or one variant of a backend, to measure.
type benchConfig struct {
	name    string
	backend string
	opts    Options
	// setup, if set, adjusts the new tracker.
	setup func(Tracker)
	// smallTwins turns off huge pages for the twins (the behaviour before
	// adviseTwin), to measure them.
	smallTwins bool
}

// The configurations measured; unsupported ones are skipped. The ptrace
// blocks are the sizes issue 3 asks about.
var (
	benchConfigs = []benchConfig{
		{name: "uffd", backend: BackendUffd},
		{name: "uffd-smalltwins", backend: BackendUffd, smallTwins: true},
		{name: "compare", backend: BackendCompare},
		{name: "complete", backend: BackendComplete},
		{name: "ptrace-B1", backend: BackendPtrace, opts: Options{PtraceBlock: 1}},
		{name: "ptrace-B4", backend: BackendPtrace, opts: Options{PtraceBlock: 4}},
		{name: "ptrace-B16", backend: BackendPtrace, opts: Options{PtraceBlock: 16}},
		{name: "ptrace-B64", backend: BackendPtrace, opts: Options{PtraceBlock: 64}},
	}
	loopConfigs = append(append([]benchConfig{
		{name: "uffd", backend: BackendUffd},
	}, uffdModeConfigs...), []benchConfig{
		{name: "compare", backend: BackendCompare},
		{name: "complete", backend: BackendComplete},
		{name: "ptrace-B1", backend: BackendPtrace, opts: Options{PtraceBlock: 1}},
		{name: "ptrace-B16", backend: BackendPtrace, opts: Options{PtraceBlock: 16}},
		{name: "ptrace-B64", backend: BackendPtrace, opts: Options{PtraceBlock: 64}},
	}...)
)

// newBench returns a tracker of configuration c watching mem.
func newBench(b *testing.B, c benchConfig, mem []byte) Tracker {
	b.Helper()
	if c.smallTwins {
		hugeTwins = false
		b.Cleanup(func() { hugeTwins = true })
	}
	tr, err := New(c.backend, mem, c.opts)
	if err != nil {
		testenv.Skip(b, "%s: %v", c.name, err)
	}
	b.Cleanup(func() {
		if err := tr.Close(); err != nil {
			b.Errorf("Close: %v", err)
		}
	})
	if c.setup != nil {
		c.setup(tr)
	}
	return tr
}

// BenchmarkStartStop measures one region on a 256 MiB extent: Start, one
// byte written on the given fraction of its pages (evenly spread, in
// increasing order), Stop. ns/dirty-page divides the region's time by the
// pages written; first-Start-ms is the first Start, which populates the
// twins (once per tracker, not part of ns/op).
func BenchmarkStartStop(b *testing.B) {
	const extent = 256 << 20
	for _, c := range benchConfigs {
		for _, pct := range []int{0, 1, 10, 100} {
			b.Run(fmt.Sprintf("%s/dirty=%d%%", c.name, pct), func(b *testing.B) {
				mem := mapArena(b, extent)
				tr := newBench(b, c, mem)
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
				t0 := time.Now()
				if err := tr.Start(extent); err != nil {
					b.Fatal(err)
				}
				first := time.Since(t0)
				if _, err := tr.Stop(); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if err := tr.Start(extent); err != nil {
						b.Fatal(err)
					}
					for p := range dirty {
						mem[p*stride*ps+8]++
					}
					got, err := tr.Stop()
					if err != nil {
						b.Fatal(err)
					}
					if len(got) != dirty && c.backend != BackendComplete {
						b.Fatalf("Stop reported %d pages, want %d", len(got), dirty)
					}
				}
				if dirty > 0 {
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(dirty), "ns/dirty-page")
				}
				b.ReportMetric(float64(first.Microseconds())/1e3, "first-Start-ms")
			})
		}
	}
}

// The dense loops of BenchmarkDenseLoop. Each writes every int64 of the
// memory once per run and changes its value from one run to the next.
var denseLoops = []struct {
	name string
	size int
	// newRun returns a function that runs the loop on w for iteration it.
	newRun func(size int) func(w []int64, it int)
}{
	// Memory-bound: one add per int64 written, as fast as memory goes.
	{"mem", 64 << 20, func(int) func([]int64, int) {
		return func(w []int64, it int) {
			for i := range w {
				w[i] += int64(i ^ it)
			}
		}
	}},
	// Realistic: rows of an integer matrix product C = A×B whose inner
	// dimension is 16 (then 64): 16 (64) multiply-adds per int64 of C
	// written. The paper's products have an inner dimension of 3000 to
	// 12000, so this is still the hard end for a monitor.
	{"matmul-k16", 16 << 20, func(size int) func([]int64, int) { return matmulRows(size, 16) }},
	{"matmul-k64", 16 << 20, func(size int) func([]int64, int) { return matmulRows(size, 64) }},
}

// matmulRows returns a loop computing C = A×B + it, for C of size bytes
// (rows of 512 int64s, one page each) and an inner dimension of k.
func matmulRows(size, k int) func(c []int64, it int) {
	const cols = 512
	rows := size / 8 / cols
	a := make([]int64, rows*k)
	bm := make([]int64, k*cols)
	for i := range a {
		a[i] = int64(i%7 + 1)
	}
	for i := range bm {
		bm[i] = int64(i%5 + 2)
	}
	return func(c []int64, it int) {
		var acc [cols]int64
		for i := range rows {
			for j := range acc {
				acc[j] = int64(it)
			}
			for kk, aik := range a[i*k : (i+1)*k] {
				bk := bm[kk*cols : (kk+1)*cols : (kk+1)*cols]
				for j := range acc {
					acc[j] += aik * bk[j]
				}
			}
			copy(c[i*cols:(i+1)*cols], acc[:])
		}
	}
}

// BenchmarkDenseLoop runs each dense loop on an unmonitored copy of the
// memory and on the monitored memory inside a region, and reports the
// ratio of the region's time (Start, loop, Stop) to the plain loop's. Both
// memories are mapped and populated the same way; ns/op is their sum.
func BenchmarkDenseLoop(b *testing.B) {
	for _, l := range denseLoops {
		for _, c := range loopConfigs {
			b.Run(l.name+"/"+c.name, func(b *testing.B) {
				plainMem, mem := mapArena(b, l.size), mapArena(b, l.size)
				plain, monitored := int64s(plainMem), int64s(mem)
				run := l.newRun(l.size)
				run(plain, 0)
				run(monitored, 0)
				tr := newBench(b, c, mem)
				region := func(it int) {
					if err := tr.Start(l.size); err != nil {
						b.Fatal(err)
					}
					run(monitored, it)
					if _, err := tr.Stop(); err != nil {
						b.Fatal(err)
					}
				}
				region(1) // the first Start populates the twins
				var tPlain, tMonitored time.Duration
				it := 2
				for b.Loop() {
					t0 := time.Now()
					run(plain, it)
					t1 := time.Now()
					region(it)
					tPlain += t1.Sub(t0)
					tMonitored += time.Since(t1)
					it++
				}
				n := float64(b.N)
				b.ReportMetric(float64(tPlain.Nanoseconds())/n, "ns/plain")
				b.ReportMetric(float64(tMonitored.Nanoseconds())/n, "ns/monitored")
				b.ReportMetric(float64(tMonitored)/float64(tPlain), "ratio")
				pages := l.size / tr.PageSize()
				b.ReportMetric(float64((tMonitored-tPlain).Nanoseconds())/n/float64(pages), "ns-extra/page")
			})
		}
	}
}

// stencilConfigs are the monitors BenchmarkStencil compares: the uffd
// default (adaptive), uffd with its mode forced, and compare.
var stencilConfigs = append(append([]benchConfig{
	{name: "uffd", backend: BackendUffd},
}, uffdModeConfigs...), benchConfig{name: "compare", backend: BackendCompare})

// stencilGrid is n×n float64s, the grid of examples/stencil at n = 1024.
const stencilN = 1024

// stencilHalf runs one Jacobi sweep of the rows [lo, hi) of the grid: v
// from u, as examples/stencil does.
func stencilHalf(u, v []float64, n, lo, hi int) {
	for i := max(lo, 1); i < min(hi, n-1); i++ {
		for j := 1; j < n-1; j++ {
			k := i*n + j
			v[k] = 0.25 * (u[k-n] + u[k+n] + u[k-1] + u[k+1])
		}
	}
}

// BenchmarkStencil is the pattern of examples/stencil on node 0 of 2: two
// grids u and v in the arena, one region per iteration in which this node
// computes the first half of v's rows from u; after Stop, every written
// page is diffed against its twin (as cape's Create does) and the other
// half of v is written as the injected delta of the other node would be
// (here computed in place, outside the region); then u and v swap. Each
// region therefore writes a contiguous quarter of the extent, and the
// injection writes another quarter between regions. The same iterations
// run on unmonitored memory in the same loop: ratio is the monitored
// iteration's time over the plain one's, ns-extra/dirty-page the
// difference per page the region wrote.
func BenchmarkStencil(b *testing.B) {
	const n = stencilN
	size := 2 * n * n * 8
	for _, c := range stencilConfigs {
		b.Run(c.name, func(b *testing.B) {
			plainMem, mem := mapArena(b, size), mapArena(b, size)
			tr := newBench(b, c, mem)
			ps := tr.PageSize()
			grids := func(m []byte) (u, v []float64) {
				f := float64s(m)
				return f[:n*n], f[n*n:]
			}
			pu, pv := grids(plainMem)
			mu, mv := grids(mem)
			for _, g := range [][]float64{pu, pv, mu, mv} {
				for j := range n {
					g[j] = 1
				}
				for k := n; k < len(g); k++ {
					g[k] = float64(k%7) / 7 // a warm grid: every page changes
				}
			}
			plainIter := func() {
				stencilHalf(pu, pv, n, 0, n/2)
				stencilHalf(pu, pv, n, n/2, n)
				pu, pv = pv, pu
			}
			dirty := 0
			iter := func() {
				if err := tr.Start(size); err != nil {
					b.Fatal(err)
				}
				stencilHalf(mu, mv, n, 0, n/2)
				pages, err := tr.Stop()
				if err != nil {
					b.Fatal(err)
				}
				for _, p := range pages {
					if bytes.Equal(mem[p*ps:(p+1)*ps], tr.Twin(p)) {
						b.Fatalf("page %d reported written, unchanged", p)
					}
				}
				dirty += len(pages)
				stencilHalf(mu, mv, n, n/2, n) // the injected half
				mu, mv = mv, mu
			}
			for range 4 { // the first Start populates the twins; let the mode settle
				plainIter()
				iter()
			}
			dirty = 0
			var tPlain, tMonitored time.Duration
			for b.Loop() {
				t0 := time.Now()
				plainIter()
				t1 := time.Now()
				iter()
				tPlain += t1.Sub(t0)
				tMonitored += time.Since(t1)
			}
			nf := float64(b.N)
			b.ReportMetric(float64(tPlain.Nanoseconds())/nf, "ns/plain")
			b.ReportMetric(float64(tMonitored.Nanoseconds())/nf, "ns/monitored")
			b.ReportMetric(float64(tMonitored)/float64(tPlain), "ratio")
			b.ReportMetric(float64(dirty)/nf, "dirty-pages/region")
			if dirty > 0 {
				b.ReportMetric(float64((tMonitored-tPlain).Nanoseconds())/float64(dirty), "ns-extra/dirty-page")
			}
		})
	}
}
