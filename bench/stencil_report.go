package bench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

var stencilColor = map[Mode]string{HaloGo: "#2ca02c", HaloC: "#ff7f0e", MPGo: "#2ca02c"}

func colorOf(m Mode) string {
	if c, ok := stencilColor[m]; ok {
		return c
	}
	return modeColor[m]
}

// stencilTable holds the samples of a stencil run grouped by cell.
type stencilTable struct {
	w       *Workload
	samples []StencilSample
	groups  map[key][]StencilSample
	sizes   []int
	nodes   []int
	modes   []Mode
	iters   int
}

func tabulateStencil(samples []StencilSample) *stencilTable {
	t := &stencilTable{w: samples[0].workload(), samples: samples, groups: map[key][]StencilSample{}}
	for _, s := range samples {
		k := key{s.Size, s.Nodes, s.Mode}
		t.groups[k] = append(t.groups[k], s)
		if !slices.Contains(t.sizes, s.Size) {
			t.sizes = append(t.sizes, s.Size)
		}
		if s.Mode.distributed() && !slices.Contains(t.nodes, s.Nodes) {
			t.nodes = append(t.nodes, s.Nodes)
		}
		t.iters = s.Iters
	}
	for _, m := range t.w.Modes {
		if slices.ContainsFunc(samples, func(s StencilSample) bool { return s.Mode == m }) {
			t.modes = append(t.modes, m)
		}
	}
	slices.Sort(t.sizes)
	slices.Sort(t.nodes)
	return t
}

// get returns the repetitions of a cell (one-node modes ignore nodes).
//
// Seq runs once per node count, beside the distributed variants (its
// sample's Nodes is the group's): get(size, k, Seq) is the runs of group k,
// or every run of the size when there are none (a results.csv written
// before seq ran in every group); get(size, 0, Seq) is every run.
func (t *stencilTable) get(size, nodes int, m Mode) []StencilSample {
	switch {
	case m == Seq:
		if g := t.groups[key{size, nodes, m}]; len(g) > 0 {
			return g
		}
		var all []StencilSample
		for _, s := range t.samples {
			if s.Size == size && s.Mode == Seq {
				all = append(all, s)
			}
		}
		return all
	case !m.distributed():
		nodes = 1
	}
	return t.groups[key{size, nodes, m}]
}

// med is the median of f over g.
func med(g []StencilSample, f func(StencilSample) float64) float64 {
	v := make([]float64, len(g))
	for i, s := range g {
		v[i] = f(s)
	}
	return median(v)
}

func secondsOf(s StencilSample) float64 { return s.Seconds }

// timeText is the median [min–max] of the cell's times, or "–".
func timeText(g []StencilSample) string {
	if len(g) == 0 {
		return "–"
	}
	v := make([]float64, len(g))
	for i, s := range g {
		v[i] = s.Seconds
	}
	if len(v) == 1 {
		return fmt.Sprintf("%.3f", v[0])
	}
	return fmt.Sprintf("%.3f [%.3f–%.3f]", median(v), slices.Min(v), slices.Max(v))
}

// ratio is the median, min and max over repetitions of a's time over b's in
// the same repetition.
func (t *stencilTable) ratio(size, nodes int, a, b Mode) string {
	rb := map[int]float64{}
	for _, s := range t.get(size, nodes, b) {
		rb[s.Rep] = s.Seconds
	}
	var rs []float64
	for _, s := range t.get(size, nodes, a) {
		if y, ok := rb[s.Rep]; ok && y > 0 {
			rs = append(rs, s.Seconds/y)
		}
	}
	if len(rs) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.3f [%.3f–%.3f]", median(rs), slices.Min(rs), slices.Max(rs))
}

// ReportStencil writes results.md and the SVG figures of a stencil run into
// dir.
func ReportStencil(dir string, samples []StencilSample) error {
	if len(samples) == 0 {
		return errors.New("report: no samples")
	}
	t := tabulateStencil(samples)
	var b strings.Builder
	emu := ""
	if i := slices.IndexFunc(samples, func(s StencilSample) bool { return s.Emulated }); i >= 0 {
		emu = fmt.Sprintf(" Emulated cluster: %.3g CPU per node, link %s.", samples[i].NodeCPUs, orDefault(samples[i].Bandwidth, "unlimited"))
	}
	fmt.Fprintf(&b, "# cape bench %s results\n\n%s; size n: %s; %d iterations. "+
		"Times are the iterations in seconds as each variant times them (median of the repetitions, [min–max]); "+
		"every run printed the same line (a hash of every bit of the result). "+
		"The machine and the configuration are in machine.md, every sample in results.csv.%s\n\n", t.w.Name, t.w.Title, t.w.Size, t.iters, emu)
	writeStencilTimes(&b, t)
	writeStencilRatios(&b, t)
	writeStencilBytes(&b, t)
	writeStencilRSS(&b, t)
	writeStencilBreakdown(&b, t)
	charts := []*chart{stencilTimeChart(t), stencilBytesChart(t)}
	for i, f := range t.w.Figures() {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(charts[i].svg()), 0o644); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "results.md"), []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// eachDist calls f, in table order, with the samples of every size, node
// count of at least minNodes and distributed mode that has any.
func (t *stencilTable) eachDist(minNodes int, f func(n, k int, m Mode, g []StencilSample)) {
	for _, n := range t.sizes {
		for _, k := range t.nodes {
			if k < minNodes {
				continue
			}
			for _, m := range t.distModes() {
				if g := t.get(n, k, m); len(g) > 0 {
					f(n, k, m, g)
				}
			}
		}
	}
}

var stencilDist = []Mode{Incremental, Complete, HaloGo, MPGo, HaloC}

func (t *stencilTable) distModes() []Mode {
	var out []Mode
	for _, m := range stencilDist {
		if slices.Contains(t.modes, m) {
			out = append(out, m)
		}
	}
	return out
}

func writeStencilTimes(b *strings.Builder, t *stencilTable) {
	fmt.Fprintf(b, "## One node\n\nseq runs beside the distributed variants of every node count (for paired ratios); this column has all its runs.\n\n"+
		"| n | seq (plain go build) | goroutines (every core) | speedup |\n|---|---|---|---|\n")
	for _, n := range t.sizes {
		seq, gor := t.get(n, 0, Seq), t.get(n, 1, Goroutines)
		sp := "–"
		if len(seq) > 0 && len(gor) > 0 {
			sp = fmt.Sprintf("%.2f", med(seq, secondsOf)/med(gor, secondsOf))
		}
		fmt.Fprintf(b, "| %d | %s | %s | %s |\n", n, timeText(seq), timeText(gor), sp)
	}
	cols := t.distModes()
	if slices.Contains(t.modes, Seq) {
		cols = append([]Mode{Seq}, cols...) // seq: its runs beside that node count's
	}
	for _, n := range t.sizes {
		fmt.Fprintf(b, "\n## Time vs nodes, n = %d\n\n| nodes |", n)
		for _, m := range cols {
			fmt.Fprintf(b, " %s |", m)
		}
		fmt.Fprintf(b, "\n|---|%s\n", strings.Repeat("---|", len(cols)))
		for _, k := range t.nodes {
			fmt.Fprintf(b, "| %d |", k)
			for _, m := range cols {
				fmt.Fprintf(b, " %s |", timeText(t.get(n, k, m)))
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
}

func writeStencilRatios(b *strings.Builder, t *stencilTable) {
	base := t.w.Baseline
	goals := ""
	if t.w.Goals != "" {
		goals = " " + t.w.Goals
	}
	fmt.Fprintf(b, "## Ratios\n\nTimes of the same repetition divided, median [min–max] over the repetitions.%[2]s\n\n"+
		"| n | nodes | incremental / seq | incremental / %[1]s | incremental / halo-c | %[1]s / seq | halo-c / seq | complete / incremental |\n"+
		"|---|---|---|---|---|---|---|---|\n", base, goals)
	for _, n := range t.sizes {
		for _, k := range t.nodes {
			fmt.Fprintf(b, "| %d | %d | %s | %s | %s | %s | %s | %s |\n", n, k,
				t.ratio(n, k, Incremental, Seq), t.ratio(n, k, Incremental, base), t.ratio(n, k, Incremental, HaloC),
				t.ratio(n, k, base, Seq), t.ratio(n, k, HaloC, Seq), t.ratio(n, k, Complete, Incremental))
		}
	}
	b.WriteString("\n")
}

func writeStencilBytes(b *strings.Builder, t *stencilTable) {
	fmt.Fprintf(b, "## Bytes moved per iteration per node\n\n"+
		"Medians of bytes per iteration: the master (rank 0) and the mean over the other nodes, sent and received "+
		"(CAPE: the --stats byte counts of every node's region exchanges, over all the regions of an iteration; "+
		"the message-passing baselines: halos and reductions, counted by the program, the final gather excluded). "+
		"The last column divides what the other nodes receive by what a non-master node of the baseline's decomposition "+
		"must receive per iteration: for the grids and cg the neighbours' boundary rows (planes for heat3d, m entries of p "+
		"for cg), two for an interior node and one for the last node (mean over the non-master nodes); for power the "+
		"parts of x the other nodes computed.\n\n"+
		"| n | nodes | mode | master sent | master received | others sent | others received | others received / needed |\n"+
		"|---|---|---|---|---|---|---|---|\n")
	t.eachDist(2, func(n, k int, m Mode, g []StencilSample) {
		recv := med(g, func(s StencilSample) float64 { return s.OtherRecv })
		fmt.Fprintf(b, "| %d | %d | %s | %s | %s | %s | %s | %.1f× |\n", n, k, m,
			sizeText(med(g, func(s StencilSample) float64 { return s.MasterSent })),
			sizeText(med(g, func(s StencilSample) float64 { return s.MasterRecv })),
			sizeText(med(g, func(s StencilSample) float64 { return s.OtherSent })),
			sizeText(recv), recv/t.w.needs(n, k))
	})
	b.WriteString("\n")
}

// sizeText prints a byte count with a binary unit.
func sizeText(v float64) string {
	switch {
	case v >= 1<<20:
		return fmt.Sprintf("%.2f MiB", v/(1<<20))
	case v >= 1<<10:
		return fmt.Sprintf("%.1f KiB", v/(1<<10))
	}
	return fmt.Sprintf("%.0f B", v)
}

// writeStencilRSS writes the peak RSS per node (bench/rsswrap's ru_maxrss).
func writeStencilRSS(b *strings.Builder, t *stencilTable) {
	if !slices.ContainsFunc(t.samples, func(s StencilSample) bool { return s.MasterRSS > 0 }) {
		return
	}
	fmt.Fprintf(b, "## Peak RSS per node\n\n"+
		"Medians of the peak resident set size (wait4's ru_maxrss, measured by bench/rsswrap around every process): "+
		"the master (rank 0) and the largest of the other nodes, and the master's over seq's of the same node count. "+
		"seq is the one process of the sequential program.\n\n"+
		"| n | nodes | mode | master | largest other | master / seq |\n|---|---|---|---|---|---|\n")
	for _, n := range t.sizes {
		seq := med(t.get(n, 0, Seq), func(s StencilSample) float64 { return s.MasterRSS })
		if seq > 0 {
			fmt.Fprintf(b, "| %d | 1 | seq | %s | – | 1 |\n", n, sizeText(seq))
		}
		for _, k := range t.nodes {
			for _, m := range t.distModes() {
				g := t.get(n, k, m)
				if len(g) == 0 {
					continue
				}
				master := med(g, func(s StencilSample) float64 { return s.MasterRSS })
				ratio := "–"
				if seq > 0 {
					ratio = fmt.Sprintf("%.2f", master/seq)
				}
				other := "–"
				if v := med(g, func(s StencilSample) float64 { return s.OtherRSS }); v > 0 {
					other = sizeText(v)
				}
				fmt.Fprintf(b, "| %d | %d | %s | %s | %s | %s |\n", n, k, m, sizeText(master), other, ratio)
			}
		}
	}
	b.WriteString("\n")
}

func writeStencilBreakdown(b *strings.Builder, t *stencilTable) {
	fmt.Fprintf(b, "## Where the time goes (master / rank 0, ms per iteration, medians)\n\n"+
		"CAPE: cape run --stats summed over the regions of the master; compute is its own share of the sweep "+
		"(in a region, write faults included), slowest the slowest node's; the exchange is wait (for the slaves' "+
		"deltas) + merge/inject + send; comm = create + exchange. The time outside them (the span minus compute "+
		"and comm) is starting and stopping the regions. halo-go, mp-go, halo-c: rank 0's compute, and comm = its "+
		"span minus compute (halo exchange, reduction, waiting for neighbours, final gather).\n\n"+
		"| n | nodes | mode | span | compute | slowest compute | create | wait | merge/inject | send | comm | other | pages per region |\n"+
		"|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	t.eachDist(0, func(n, k int, m Mode, g []StencilSample) {
		it := float64(g[0].Iters)
		ms := func(f func(StencilSample) float64) float64 { return 1000 * med(g, f) / it }
		span, comp, comm := ms(secondsOf), ms(func(s StencilSample) float64 { return s.Compute }), ms(func(s StencilSample) float64 { return s.Comm })
		fmt.Fprintf(b, "| %d | %d | %s | %.3f | %.3f | %.3f |", n, k, m, span, comp, ms(func(s StencilSample) float64 { return s.MaxCompute }))
		if m == HaloGo || m == HaloC || m == MPGo {
			fmt.Fprintf(b, " – | – | – | – | %.3f | – | – |\n", comm)
			return
		}
		fmt.Fprintf(b, " %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.0f |\n",
			ms(func(s StencilSample) float64 { return s.Create }), ms(func(s StencilSample) float64 { return s.Wait }),
			ms(func(s StencilSample) float64 { return s.Merge }), ms(func(s StencilSample) float64 { return s.Send }),
			comm, span-comp-comm, med(g, func(s StencilSample) float64 { return s.Pages }))
	})
	b.WriteString("\n")
}

func stencilTimeChart(t *stencilTable) *chart {
	n := t.sizes[len(t.sizes)-1]
	c := &chart{title: fmt.Sprintf("%s: time of %d iterations vs nodes (n = %d)", t.w.Name, t.iters, n), xlabel: "nodes", ylabel: "seconds", log2x: true,
		note: "points: medians with min–max; seq and goroutines (one node) drawn flat across the node counts"}
	for _, m := range []Mode{Seq, Goroutines} {
		g := t.get(n, 0, m)
		if len(g) == 0 || len(t.nodes) == 0 {
			continue
		}
		y := med(g, secondsOf)
		var pts []point
		for _, k := range t.nodes {
			pts = append(pts, point{float64(k), y, y, y})
		}
		c.series = append(c.series, series{name: string(m) + " (1 node)", color: colorOf(m), dashed: true, points: pts})
	}
	for _, m := range t.distModes() {
		var pts []point
		for _, k := range t.nodes {
			if g := t.get(n, k, m); len(g) > 0 {
				v := make([]float64, len(g))
				for i, s := range g {
					v[i] = s.Seconds
				}
				pts = append(pts, point{float64(k), median(v), slices.Min(v), slices.Max(v)})
			}
		}
		if len(pts) > 0 {
			c.series = append(c.series, series{name: string(m), color: colorOf(m), points: pts})
		}
	}
	return c
}

func stencilBytesChart(t *stencilTable) *chart {
	n := t.sizes[len(t.sizes)-1]
	c := &chart{title: fmt.Sprintf("Bytes a non-master node receives per iteration (n = %d)", n), xlabel: "nodes", ylabel: "KiB per iteration", log2x: true,
		note: "medians, mean over the non-master nodes; grey: what they must receive (halo rows, planes or x)"}
	halo := series{name: "needed", color: "#999999", dashed: true}
	for _, k := range t.nodes {
		if k >= 2 {
			y := t.w.needs(n, k) / 1024
			halo.points = append(halo.points, point{float64(k), y, y, y})
		}
	}
	for _, m := range t.distModes() {
		var pts []point
		for _, k := range t.nodes {
			if g := t.get(n, k, m); len(g) > 0 && k >= 2 {
				y := med(g, func(s StencilSample) float64 { return s.OtherRecv }) / 1024
				pts = append(pts, point{float64(k), y, y, y})
			}
		}
		if len(pts) > 0 {
			c.series = append(c.series, series{name: string(m), color: colorOf(m), points: pts})
		}
	}
	if len(halo.points) > 0 {
		c.series = append(c.series, halo)
	}
	return c
}
