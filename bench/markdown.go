package bench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Figures are the files Report writes besides results.md.
var Figures = []string{"fig4_time_vs_nodes.svg", "fig5_time_vs_size.svg", "fig6_speedup.svg", "fig6_efficiency.svg"}

// Report writes results.md and the SVG figures for samples into dir.
// modelNodes is how far the model's curves extrapolate (0 means 32).
func Report(dir string, samples []Sample, modelNodes int) error {
	if len(samples) == 0 {
		return errors.New("report: no samples")
	}
	if modelNodes <= 0 {
		modelNodes = 32
	}
	t := aggregate(samples)
	md := fitModel(t)
	var b strings.Builder
	emu := ""
	for _, s := range samples {
		if s.Emulated {
			emu = fmt.Sprintf(" Emulated cluster: %.3g CPU per node, link %s.", s.NodeCPUs, orDefault(s.Bandwidth, "unlimited"))
			break
		}
	}
	fmt.Fprintf(&b, "# cape bench matmul results\n\nTimes are the parallel part in seconds (median of the repetitions, [min–max]); "+
		"the machine and the configuration are in machine.md, every sample in results.csv.%s\n\n", emu)
	writeTableI(&b, t)
	writeFig4(&b, t, md)
	writeFig5(&b, t, md)
	writeFig6(&b, t)
	writeRatios(&b, t)
	writeBreakdown(&b, t)
	writeModel(&b, t, md, modelNodes)
	charts := map[string]*chart{
		Figures[0]: fig4Chart(t, md, modelNodes),
		Figures[1]: fig5Chart(t, md),
		Figures[2]: fig6Chart(t, md, modelNodes, false),
		Figures[3]: fig6Chart(t, md, modelNodes, true),
	}
	for _, f := range Figures {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(charts[f].svg()), 0o644); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "results.md"), []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

func cellText(s stat, ok bool) string {
	if !ok {
		return "–"
	}
	if s.count > 1 {
		return fmt.Sprintf("%.3f [%.3f–%.3f]", s.median, s.min, s.max)
	}
	return fmt.Sprintf("%.3f", s.median)
}

func has(t *table, m Mode) bool { return slices.Contains(t.modes, m) }

func writeTableI(b *strings.Builder, t *table) {
	fmt.Fprintf(b, "## Table I — one node: sequential vs shared-memory parallel\n\n")
	fmt.Fprintf(b, "| n | seq | goroutines | speedup | omp-c (C, OpenMP) | speedup |\n|---|---|---|---|---|---|\n")
	for _, n := range t.sizes {
		seq, okS := t.get(n, 1, Seq)
		g, okG := t.get(n, 1, Goroutines)
		o, okO := t.get(n, 1, OMPC)
		sp := func(x stat, ok bool) string {
			if !ok || !okS {
				return "–"
			}
			return fmt.Sprintf("%.2f", seq.median/x.median)
		}
		fmt.Fprintf(b, "| %d | %s | %s | %s | %s | %s |\n", n, cellText(seq, okS), cellText(g, okG), sp(g, okG), cellText(o, okO), sp(o, okO))
	}
	b.WriteString("\nspeedup = seq / parallel on the same machine; omp-c's speedup is against the Go sequential time (the C kernel is compiled by gcc -O2, so it is also faster per core).\n\n")
}

var distModes = []Mode{Complete, Incremental, MPIGo, MPIGoGather, MPIC}

func writeFig4(b *strings.Builder, t *table, md *model) {
	for _, n := range t.sizes {
		fmt.Fprintf(b, "## Fig. 4 — time vs nodes, n = %d\n\n| nodes |", n)
		var cols []Mode
		for _, m := range distModes {
			if has(t, m) {
				cols = append(cols, m)
				fmt.Fprintf(b, " %s |", m)
			}
		}
		fmt.Fprintf(b, " model: incremental | model: complete |\n|---|%s---|---|\n", strings.Repeat("---|", len(cols)))
		for _, k := range t.nodes {
			fmt.Fprintf(b, "| %d |", k)
			for _, m := range cols {
				s, ok := t.get(n, k, m)
				fmt.Fprintf(b, " %s |", cellText(s, ok))
			}
			for _, m := range []Mode{Incremental, Complete} {
				p, ok := md.predict(m, n, k)
				if ok {
					fmt.Fprintf(b, " %.3f |", p)
				} else {
					b.WriteString(" – |")
				}
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
}

func writeFig5(b *strings.Builder, t *table, md *model) {
	k := t.nodes[len(t.nodes)-1]
	fmt.Fprintf(b, "## Fig. 5 — time vs size, %d nodes\n\n| n | seq |", k)
	var cols []Mode
	for _, m := range distModes {
		if has(t, m) {
			cols = append(cols, m)
			fmt.Fprintf(b, " %s |", m)
		}
	}
	fmt.Fprintf(b, "\n|---|---|%s\n", strings.Repeat("---|", len(cols)))
	for _, n := range t.sizes {
		s, ok := t.get(n, 1, Seq)
		fmt.Fprintf(b, "| %d | %s |", n, cellText(s, ok))
		for _, m := range cols {
			s, ok := t.get(n, k, m)
			fmt.Fprintf(b, " %s |", cellText(s, ok))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

func writeFig6(b *strings.Builder, t *table) {
	fmt.Fprintf(b, "## Fig. 6 — speedup and efficiency of CAPE-incremental\n\nspeedup = seq(n) / incremental(n, N); efficiency = speedup / N.\n\n| nodes |")
	for _, n := range t.sizes {
		fmt.Fprintf(b, " n=%d speedup | efficiency |", n)
	}
	fmt.Fprintf(b, "\n|---|%s\n", strings.Repeat("---|---|", len(t.sizes)))
	for _, k := range t.nodes {
		fmt.Fprintf(b, "| %d |", k)
		for _, n := range t.sizes {
			seq, ok1 := t.get(n, 1, Seq)
			inc, ok2 := t.get(n, k, Incremental)
			if ok1 && ok2 {
				sp := seq.median / inc.median
				fmt.Fprintf(b, " %.2f | %.0f%% |", sp, 100*sp/float64(k))
			} else {
				b.WriteString(" – | – |")
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

func writeRatios(b *strings.Builder, t *table) {
	fmt.Fprintf(b, "## CAPE against message passing, and incremental against complete\n\n"+
		"Ratios of times measured in the same repetition (the variants of a repetition run interleaved), median [min–max] over the repetitions. The paper: CAPE-incremental / MPI = 1.10 at n = 12000, 1.3 at n = 3000.\n\n"+
		"| n | nodes | incremental / mpi-go | incremental / mpi-go-gather | incremental / mpi-c | incremental / complete |\n|---|---|---|---|---|---|\n")
	for _, n := range t.sizes {
		for _, k := range t.nodes {
			fmt.Fprintf(b, "| %d | %d |", n, k)
			for _, base := range []Mode{MPIGo, MPIGoGather, MPIC, Complete} {
				if m, lo, hi, ok := t.pairedRatio(n, k, Incremental, base); ok {
					fmt.Fprintf(b, " %.3f [%.3f–%.3f] |", m, lo, hi)
				} else {
					b.WriteString(" – |")
				}
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
}

func writeBreakdown(b *strings.Builder, t *table) {
	fmt.Fprintf(b, "## Where the time goes (master / rank 0, medians)\n\n"+
		"CAPE: cape run --stats on the master; compute is the master's own share, slowest the slowest node's; "+
		"the exchange is wait (for the slaves' deltas: a slower slave shows here) + merge/inject + send. "+
		"mpi-go: rank 0's compute, and comm = gather + broadcast (it includes waiting for the other ranks).\n\n"+
		"| n | nodes | mode | total | compute | slowest compute | create | wait | merge/inject | send | comm | bytes sent | bytes received |\n"+
		"|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, n := range t.sizes {
		for _, k := range t.nodes {
			for _, m := range []Mode{Complete, Incremental, MPIGo, MPIGoGather} {
				s, ok := t.get(n, k, m)
				if !ok {
					continue
				}
				if m == MPIGo || m == MPIGoGather {
					fmt.Fprintf(b, "| %d | %d | %s | %.3f | %.3f | – | – | – | – | – | %.4f | – | – |\n", n, k, m, s.median, s.compute, s.comm)
					continue
				}
				fmt.Fprintf(b, "| %d | %d | %s | %.3f | %.3f | %.3f | %.4f | %.4f | %.4f | %.4f | %.4f | %.0f | %.0f |\n",
					n, k, m, s.median, s.compute, s.maxComp, s.create, s.wait, s.merge, s.send, s.comm, s.sent, s.received)
			}
		}
	}
	b.WriteString("\n")
}

func writeModel(b *strings.Builder, t *table, md *model, upTo int) {
	fmt.Fprintf(b, "## Performance model\n\nT(n, N) = T1(n)/N + s·V(n, N)/BW + m·M(n, N) + d, where T1(n) is the measured sequential time at size n "+
		"(a·n³ for a size without one); BW > 0 and s, m, d ≥ 0, so T(n, N) ≥ T1(n)/N: the model's efficiency never exceeds 1 "+
		"(bench/model.go explains V and M).\n\n")
	if md.a == 0 {
		b.WriteString("Not fitted: " + strings.Join(md.notes, "; ") + "\n\n")
		return
	}
	var t1 []string
	for _, n := range t.sizes {
		if v, ok := md.t1[n]; ok {
			t1 = append(t1, fmt.Sprintf("T1(%d) = %.3f s", n, v))
		}
	}
	if len(t1) > 0 {
		fmt.Fprintf(b, "%s (the sequential medians). ", strings.Join(t1, ", "))
	}
	fmt.Fprintf(b, "a = %.3g s per multiply-add (%.2f ns); BW = %.3g MB/s. %s.\n\n| mode | s (bytes measured / formula) | m (ns per byte) | d (s) | points |\n|---|---|---|---|---|\n",
		md.a, md.a*1e9, md.bw/1e6, strings.Join(md.notes, "; "))
	for _, m := range distModes {
		if f, ok := md.fits[m]; ok {
			fmt.Fprintf(b, "| %s | %.3g | %.3g | %.3f | %d |\n", m, f.vScale, f.m*1e9, f.d, f.points)
		}
	}
	n := t.sizes[len(t.sizes)-1]
	fmt.Fprintf(b, "\nPredicted vs measured, n = %d, and extrapolation:\n\n| nodes | incremental pred | measured | complete pred | measured | mpi-go pred | measured |\n|---|---|---|---|---|---|---|\n", n)
	for _, k := range modelNodes(t.nodes, upTo) {
		fmt.Fprintf(b, "| %d |", k)
		for _, m := range []Mode{Incremental, Complete, MPIGo} {
			p, ok := md.predict(m, n, k)
			s, ok2 := t.get(n, k, m)
			pt, mt := "–", "–"
			if ok {
				pt = fmt.Sprintf("%.3f", p)
			}
			if ok2 {
				mt = fmt.Sprintf("%.3f", s.median)
			}
			fmt.Fprintf(b, " %s | %s |", pt, mt)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

func modelNodes(measured []int, upTo int) []int {
	out := slices.Clone(measured)
	for k := 1; k <= upTo; k *= 2 {
		out = append(out, k)
	}
	out = append(out, upTo)
	slices.Sort(out)
	return slices.Compact(out)
}

func fig4Chart(t *table, md *model, upTo int) *chart {
	n := t.sizes[len(t.sizes)-1]
	c := &chart{title: fmt.Sprintf("Fig. 4 — execution time vs number of nodes (n = %d)", n), xlabel: "nodes", ylabel: "seconds", log2x: true}
	for _, m := range distModes {
		var pts []point
		for _, k := range t.nodes {
			if s, ok := t.get(n, k, m); ok {
				pts = append(pts, point{float64(k), s.median, s.min, s.max})
			}
		}
		if len(pts) == 0 {
			continue
		}
		c.series = append(c.series, series{name: string(m), color: modeColor[m], points: pts})
		if _, ok := md.predict(m, n, 1); ok && (m == Complete || m == Incremental || m == MPIGo) {
			var mp []point
			for _, k := range modelNodes(nil, upTo) {
				p, _ := md.predict(m, n, k)
				mp = append(mp, point{float64(k), p, p, p})
			}
			c.series = append(c.series, series{name: "model " + string(m), color: modeColor[m], dashed: true, points: mp})
		}
	}
	c.modelNote("points: measured medians with min–max", fmt.Sprintf("model, extrapolated to %d nodes", upTo), md)
	return c
}

func fig5Chart(t *table, md *model) *chart {
	k := t.nodes[len(t.nodes)-1]
	c := &chart{title: fmt.Sprintf("Fig. 5 — execution time vs matrix size (%d nodes)", k), xlabel: "n (matrix n×n)", ylabel: "seconds"}
	for _, m := range append([]Mode{Seq}, distModes...) {
		var pts []point
		for _, n := range t.sizes {
			if s, ok := t.get(n, k, m); ok {
				pts = append(pts, point{float64(n), s.median, s.min, s.max})
			}
		}
		if len(pts) == 0 {
			continue
		}
		c.series = append(c.series, series{name: string(m), color: modeColor[m], points: pts})
		if m == Complete || m == Incremental {
			var mp []point
			for _, n := range t.sizes {
				if p, ok := md.predict(m, n, k); ok {
					mp = append(mp, point{float64(n), p, p, p})
				}
			}
			if len(mp) > 0 {
				c.series = append(c.series, series{name: "model " + string(m), color: modeColor[m], dashed: true, points: mp})
			}
		}
	}
	c.modelNote("points: measured medians with min–max", "model", md)
	return c
}

var sizeColors = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"}

func fig6Chart(t *table, md *model, upTo int, efficiency bool) *chart {
	title, ylabel := "Fig. 6 — speedup of CAPE-incremental vs number of nodes", "speedup (seq / incremental)"
	if efficiency {
		title, ylabel = "Fig. 6 — efficiency of CAPE-incremental vs number of nodes", "efficiency (speedup / nodes)"
	}
	c := &chart{title: title, xlabel: "nodes", ylabel: ylabel, log2x: true}
	ideal := series{name: "ideal", color: "#999999"}
	for _, k := range modelNodes(nil, upTo) {
		y := float64(k)
		if efficiency {
			y = 1
		}
		ideal.points = append(ideal.points, point{float64(k), y, y, y})
	}
	c.series = append(c.series, ideal)
	for i, n := range t.sizes {
		seq, ok := t.get(n, 1, Seq)
		if !ok {
			continue
		}
		col := sizeColors[i%len(sizeColors)]
		var pts []point
		for _, k := range t.nodes {
			if s, ok := t.get(n, k, Incremental); ok {
				v := func(x float64) float64 {
					sp := seq.median / x
					if efficiency {
						return sp / float64(k)
					}
					return sp
				}
				pts = append(pts, point{float64(k), v(s.median), v(s.max), v(s.min)})
			}
		}
		c.series = append(c.series, series{name: fmt.Sprintf("n=%d", n), color: col, points: pts})
		var mp []point
		for _, k := range modelNodes(nil, upTo) {
			p, ok := md.predict(Incremental, n, k)
			if !ok || p <= 0 {
				continue
			}
			y := seq.median / p
			if efficiency {
				y /= float64(k)
			}
			mp = append(mp, point{float64(k), y, y, y})
		}
		if len(mp) > 0 {
			c.series = append(c.series, series{name: fmt.Sprintf("model n=%d", n), color: col, dashed: true, points: mp})
		}
	}
	c.modelNote("points: measured; grey: ideal", fmt.Sprintf("model to %d nodes", upTo), md)
	if len(c.series) == 1 {
		c.note = "no sequential run: speedup and efficiency need seq(n)"
	}
	return c
}
