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
// twins (once per tracker, not part of ns/op). Three regions like the
// measured ones run first, not measured, so that the uffd backend has
// chosen how to track them.
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
				// Warm up: the first Start populates the twin; regions like
				// those measured let the uffd backend choose how to track them.
				t0 := time.Now()
				if err := tr.Start(extent); err != nil {
					b.Fatal(err)
				}
				first := time.Since(t0)
				if _, err := tr.Stop(); err != nil {
					b.Fatal(err)
				}
				for range 3 {
					if err := tr.Start(extent); err != nil {
						b.Fatal(err)
					}
					for p := range dirty {
						mem[p*stride*ps+8]++
					}
					if _, err := tr.Stop(); err != nil {
						b.Fatal(err)
					}
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

// stencilN is the grid size of the stencil benchmark: examples/stencil at
// n = 1024, two grids of 8 MiB.
const stencilN = 1024

// stencilRows runs one Jacobi sweep of the rows [lo, hi) of the n×n grid:
// v from u, as examples/stencil does.
func stencilRows(u, v []float64, n, lo, hi int) {
	for i := max(lo, 1); i < min(hi, n-1); i++ {
		for j := 1; j < n-1; j++ {
			k := i*n + j
			v[k] = 0.25 * (u[k-n] + u[k+n] + u[k-1] + u[k+1])
		}
	}
}

// A stencilNode is node 0 of 2 running examples/stencil on its own arena,
// monitored by tr (nil: unmonitored).
type stencilNode struct {
	mem   []byte
	u, v  []float64
	vOff  int // v's offset in mem, in bytes
	tr    Tracker
	dirty int // pages reported by Stop so far
	same  int // of those, pages reported with their twin's bytes
	// inject: the other node's half is written between regions (eager
	// transfer); else it is never written here (lazy transfer, whose
	// slaves get notices of pages they do not read).
	inject bool
}

func newStencilNode(b *testing.B, tr Tracker, mem []byte, inject bool) *stencilNode {
	const n = stencilN
	f := float64s(mem)
	s := &stencilNode{mem: mem, u: f[:n*n], v: f[n*n : 2*n*n], vOff: n * n * 8, tr: tr, inject: inject}
	for _, g := range [][]float64{s.u, s.v} {
		for j := range n {
			g[j] = 1 // the hot top edge
		}
		for k := n; k < len(g); k++ {
			g[k] = float64(k%7) / 7 // a warm grid: every page changes
		}
	}
	return s
}

// iter is one iteration: a region in which this node computes the first
// half of v's rows from u; every page Stop reports is checked against its
// twin, as cape's Create diffs it; then, if s.inject, the other half of v
// is written outside the region, as the other node's merged delta would
// be injected (announced with WillWrite, as cape does); u and v swap. A
// region writes a contiguous quarter of the extent and the injection
// another quarter; without it, half the extent is never written.
func (s *stencilNode) iter(b *testing.B) {
	const n = stencilN
	if s.tr != nil {
		if err := s.tr.Start(len(s.mem)); err != nil {
			b.Fatal(err)
		}
	}
	stencilRows(s.u, s.v, n, 0, n/2)
	if s.tr != nil {
		pages, err := s.tr.Stop()
		if err != nil {
			b.Fatal(err)
		}
		// Read each reported page against its twin, as Create's diff does.
		// A page written with its own bytes may be reported (it was
		// written): once the warm grid has converged, some rows are.
		ps := s.tr.PageSize()
		for _, p := range pages {
			if bytes.Equal(s.mem[p*ps:(p+1)*ps], s.tr.Twin(p)) {
				s.same++
			}
		}
		s.dirty += len(pages)
	}
	if s.inject {
		if inj, ok := s.tr.(Injector); ok {
			if err := inj.WillWrite(s.vOff+(n/2)*n*8, (n-n/2)*n*8); err != nil {
				b.Fatal(err)
			}
		}
		stencilRows(s.u, s.v, n, n/2, n) // the injected half
	}
	s.u, s.v = s.v, s.u
	s.vOff = n*n*8 - s.vOff
}

// BenchmarkStencil runs the pattern of examples/stencil on 2 nodes (see
// stencilNode.iter) under every configuration and unmonitored, all in the
// same loop: each b.Loop iteration runs one stencil iteration of each, in
// turn, so that the ratios compare runs that shared the machine's load.
// ns/<config> is a monitored iteration, <config>/plain and <config>/compare
// its time over the unmonitored and the compare backend's, and
// <config>-ns-extra/dirty-page its time over the unmonitored one per page
// the region wrote. The other node's half is injected between regions.
func BenchmarkStencil(b *testing.B) { benchStencil(b, true) }

// BenchmarkStencilLazy is BenchmarkStencil with nothing injected: the other
// node's halves of both grids are never written on this node, as under
// lazy transfer while they do not change here, so a monitor that costs in
// proportion to the pages written pays for a quarter of the extent.
func BenchmarkStencilLazy(b *testing.B) { benchStencil(b, false) }

func benchStencil(b *testing.B, inject bool) {
	size := 2 * stencilN * stencilN * 8
	plain := newStencilNode(b, nil, mapArena(b, size), inject)
	var nodes []*stencilNode
	var names []string
	for _, c := range stencilConfigs {
		mem := mapArena(b, size)
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
		nodes = append(nodes, newStencilNode(b, tr, mem, inject))
		names = append(names, c.name)
	}
	// The first Start populates the twins; let the adaptive mode settle.
	for range 4 {
		plain.iter(b)
		for _, s := range nodes {
			s.iter(b)
			s.dirty, s.same = 0, 0
		}
	}
	times := make([]time.Duration, len(nodes))
	var tPlain time.Duration
	for b.Loop() {
		t := time.Now()
		plain.iter(b)
		tPlain += time.Since(t)
		for i, s := range nodes {
			t := time.Now()
			s.iter(b)
			times[i] += time.Since(t)
		}
	}
	nf := float64(b.N)
	b.ReportMetric(float64(tPlain.Nanoseconds())/nf, "ns/plain")
	tCompare := times[len(times)-1]
	for i, name := range names {
		b.ReportMetric(float64(times[i].Nanoseconds())/nf, "ns/"+name)
		b.ReportMetric(float64(times[i])/float64(tPlain), name+"/plain")
		b.ReportMetric(float64(times[i])/float64(tCompare), name+"/compare")
		reportCosts(b, nodes[i].tr)
		if d := nodes[i].dirty; d > 0 {
			b.ReportMetric(float64((times[i]-tPlain).Nanoseconds())/float64(d), name+"-ns-extra/dirty-page")
			b.ReportMetric(float64(nodes[i].same)/float64(d), name+"-unchanged/dirty-page")
		}
	}
}
