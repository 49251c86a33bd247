package bench

import (
	"cmp"
	"iter"
	"maps"
	"math"
	"slices"
)

// key identifies a cell of the results.
type key struct {
	size, nodes int
	mode        Mode
}

// stat summarizes the repetitions of one cell.
type stat struct {
	median, min, max  float64
	count             int
	sent, received    float64 // medians of the master's bytes (CAPE)
	create, exchange  float64 // medians (CAPE)
	comm              float64 // median of Sample.Comm
	compute, maxComp  float64 // medians: the master's and the slowest node's compute
	wait, merge, send float64 // medians of the master's exchange parts (CAPE)
	emulated          bool
	cpus              float64
}

type table struct {
	cells   map[key]stat
	samples []Sample
	sizes   []int
	nodes   []int
	modes   []Mode
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func aggregate(samples []Sample) *table {
	t := &table{cells: map[key]stat{}, samples: samples}
	group := map[key][]Sample{}
	for _, s := range samples {
		k := key{s.Size, s.Nodes, s.Mode}
		group[k] = append(group[k], s)
		if !slices.Contains(t.sizes, s.Size) {
			t.sizes = append(t.sizes, s.Size)
		}
		if s.Mode.distributed() && !slices.Contains(t.nodes, s.Nodes) {
			t.nodes = append(t.nodes, s.Nodes)
		}
	}
	for _, m := range AllModes {
		for k := range group {
			if k.mode == m {
				t.modes = append(t.modes, m)
				break
			}
		}
	}
	slices.Sort(t.sizes)
	slices.Sort(t.nodes)
	for k, g := range group {
		var secs, sent, recv, cr, ex, cm, cp, mc, wt, mg, sd []float64
		for _, s := range g {
			secs = append(secs, s.Seconds)
			sent = append(sent, float64(s.Sent))
			recv = append(recv, float64(s.Received))
			cr = append(cr, s.Create)
			ex = append(ex, s.Exchange)
			cm = append(cm, s.Comm)
			cp = append(cp, s.Compute)
			mc = append(mc, s.MaxCompute)
			wt = append(wt, s.Wait)
			mg = append(mg, s.Merge)
			sd = append(sd, s.Send)
		}
		t.cells[k] = stat{median: median(secs), min: slices.Min(secs), max: slices.Max(secs), count: len(g),
			sent: median(sent), received: median(recv), create: median(cr), exchange: median(ex), comm: median(cm),
			compute: median(cp), maxComp: median(mc), wait: median(wt), merge: median(mg), send: median(sd),
			emulated: g[0].Emulated, cpus: g[0].NodeCPUs}
	}
	return t
}

// sorted returns the cells in a fixed order (size, nodes, mode), so that
// the model's sums, and so the report, do not depend on map order.
func (t *table) sorted() iter.Seq2[key, stat] {
	keys := slices.Collect(maps.Keys(t.cells))
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.size, b.size), cmp.Compare(a.nodes, b.nodes), cmp.Compare(a.mode, b.mode))
	})
	return func(yield func(key, stat) bool) {
		for _, k := range keys {
			if !yield(k, t.cells[k]) {
				return
			}
		}
	}
}

func (t *table) get(size, nodes int, m Mode) (stat, bool) {
	if !m.distributed() {
		nodes = 1
	}
	s, ok := t.cells[key{size, nodes, m}]
	return s, ok
}

// pairedRatio is the median, min and max over repetitions of a's time over
// b's time in the same repetition (the variants of a repetition run
// interleaved, so they saw the same machine).
func (t *table) pairedRatio(size, nodes int, a, b Mode) (med, lo, hi float64, ok bool) {
	byRep := func(m Mode) map[int]float64 {
		out := map[int]float64{}
		for _, s := range t.samples {
			if s.Size == size && s.Mode == m && (s.Nodes == nodes || !m.distributed()) {
				out[s.Rep] = s.Seconds
			}
		}
		return out
	}
	ra, rb := byRep(a), byRep(b)
	var rs []float64
	for r, x := range ra {
		if y, found := rb[r]; found && y > 0 {
			rs = append(rs, x/y)
		}
	}
	if len(rs) == 0 {
		return 0, 0, 0, false
	}
	return median(rs), slices.Min(rs), slices.Max(rs), true
}
