package bench

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// MPGo is the hand-written Go message passing of the workloads without a
// halogo of their own (bench/baselines/mpwork: heat3d, cg, power).
const MPGo Mode = "mp-go"

// Workload is one program of the iterative benchmarks that RunStencil
// runs: an annotated example (seq: plain go build; incremental, complete:
// cape run), its hand-written Go message-passing baseline, and what the
// report needs to know about them. Every variant prints one line whose
// hash covers every bit of the result, and times its iterations.
type Workload struct {
	Name    string // cape bench NAME; the example is examples/Example
	Example string
	Title   string // what it computes, for results.md
	Size    string // what a size n means, for results.md

	Modes        []Mode // every mode it has, in table order
	Baseline     Mode   // its hand-written Go message passing: HaloGo or MPGo
	BaselineArgs []string

	Sizes, QuickSizes string // cape bench's default --sizes, and with --quick
	Iters             int    // default iterations

	// RegionsPerIter is how many regions one iteration of the CAPE
	// program runs; MayStop says it may stop before its iterations
	// (cg, converged), so that fewer regions are fine.
	RegionsPerIter int
	MayStop        bool
	// SetupRegions is how many regions the program runs before its
	// iterations (jacobi fills its grids in one: first touch).
	SetupRegions int

	// Goals is the sentence of results.md's ratios section naming the
	// targets the ratios are held to; empty for a workload that has none.
	Goals string

	lineRE, timeRE *regexp.Regexp // groups of lineRE: the line, n, iterations

	// minSize is the smallest size that k nodes can split; points the
	// work of one iteration (for the progress bar); needs the bytes a
	// non-master node of the baseline must receive per iteration.
	minSize func(k int) int
	points  func(n int) float64
	needs   func(n, k int) float64
}

// hashLine matches the line of the examples that print `NAME n=N iters=I
// ... hash=H`.
func hashLine(name string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)^(` + name + ` n=(\d+) iters=(\d+) .*hash=[0-9a-f]{16})$`)
}

func timeLine(name string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)^` + name + `: iterations ([0-9.]+)s`)
}

func square(n int) float64 { return float64(n) * float64(n) }

// haloNeeds is what a non-master node of a block split over k nodes reads
// per iteration from others on average when each boundary message is unit
// bytes: two for an interior node, one for the last.
func haloNeeds(unit func(n int) float64) func(n, k int) float64 {
	return func(n, k int) float64 {
		if k < 2 {
			return 0
		}
		return float64(2*(k-2)+1) / float64(k-1) * unit(n)
	}
}

var (
	stencilLine = regexp.MustCompile(`(?m)^(n=(\d+) iters=(\d+) sum=\S+ weighted=\S+ last-diff=\S+ hash=[0-9a-f]{16})$`)
	rowBytes    = func(n int) float64 { return float64(n * 8) }

	// Stencil is examples/stencil, the grid heated from one edge.
	Stencil = &Workload{Name: "stencil", Example: "stencil", Size: "n×n grid",
		Title: "The 2-D Jacobi iterations of examples/stencil, edge-heated: the grid is heated from its top edge, " +
			"so most bytes never change (see jacobi for every point active)",
		Modes: []Mode{Seq, Goroutines, Incremental, Complete, HaloGo, HaloC}, Baseline: HaloGo, Sizes: "1024,2048", QuickSizes: "256,512", Iters: 100, RegionsPerIter: 1,
		Goals:  "Issue 13's goals: incremental / seq ≤ 0.6 on 2 nodes (a speedup), incremental / halo-go ≤ 2 on 2 and 4 nodes.",
		lineRE: stencilLine, timeRE: timeLine("stencil"),
		minSize: func(k int) int { return k + 2 }, points: square, needs: haloNeeds(rowBytes)}

	// Jacobi is examples/jacobi: the same sweep, every point active.
	Jacobi = &Workload{Name: "jacobi", Example: "jacobi", Size: "n×n grid",
		Title: "The 2-D Jacobi iterations of examples/jacobi, active grid: every point starts pseudo-random and changes every iteration",
		Modes: []Mode{Seq, Incremental, Complete, HaloGo}, Baseline: HaloGo, BaselineArgs: []string{"-active"}, Sizes: "1024,2048", QuickSizes: "256,512", Iters: 100, RegionsPerIter: 1, SetupRegions: 1,
		lineRE: stencilLine, timeRE: timeLine("stencil"),
		minSize: func(k int) int { return k + 2 }, points: square, needs: haloNeeds(rowBytes)}

	// Heat3D is examples/heat3d, the 7-point stencil.
	Heat3D = &Workload{Name: "heat3d", Example: "heat3d", Size: "n×n×n grid",
		Title: "The 3-D heat stencil of examples/heat3d (7 points, every point active), one region per step over the planes",
		Modes: []Mode{Seq, Incremental, Complete, MPGo}, Baseline: MPGo, BaselineArgs: []string{"-workload", "heat3d"}, Sizes: "128,256", QuickSizes: "48,64", Iters: 50, RegionsPerIter: 1,
		lineRE: hashLine("heat3d"), timeRE: timeLine("heat3d"),
		minSize: func(k int) int { return k + 2 }, points: func(n int) float64 { return square(n) * float64(n) },
		needs: haloNeeds(func(n int) float64 { return square(n) * 8 })}

	// CG is examples/cg: conjugate gradients on the CSR 2-D Poisson matrix.
	CG = &Workload{Name: "cg", Example: "cg", Size: "m×m grid, m² unknowns",
		Title: "The conjugate-gradient solver of examples/cg (CSR 5-point Poisson matrix; three short regions per iteration, " +
			"two dot products as reductions)",
		Modes: []Mode{Seq, Incremental, Complete, MPGo}, Baseline: MPGo, BaselineArgs: []string{"-workload", "cg"}, Sizes: "256,1024", QuickSizes: "64,128", Iters: 300, RegionsPerIter: 3, MayStop: true,
		lineRE: hashLine("cg"), timeRE: timeLine("cg"),
		minSize: func(k int) int { return k }, points: func(n int) float64 { return 12 * square(n) },
		needs: haloNeeds(rowBytes)}

	// Power is examples/power: the power iteration on a dense matrix.
	Power = &Workload{Name: "power", Example: "power", Size: "n×n dense matrix",
		Title: "The power iteration of examples/power (dense matrix–vector product with a max reduction, then a normalisation region)",
		Modes: []Mode{Seq, Incremental, Complete, MPGo}, Baseline: MPGo, BaselineArgs: []string{"-workload", "power"}, Sizes: "2048,4096", QuickSizes: "256,512", Iters: 20, RegionsPerIter: 2,
		lineRE: hashLine("power"), timeRE: timeLine("power"),
		minSize: func(k int) int { return k }, points: square,
		needs: func(n, k int) float64 { return float64(n) * 8 * float64(k-1) / float64(k) }}

	// Workloads lists every workload, stencil first.
	Workloads = []*Workload{Stencil, Jacobi, Heat3D, CG, Power}
)

// Figures are the files ReportStencil writes for w besides results.md,
// named after the workload.
func (w *Workload) Figures() []string {
	return []string{w.Name + "_time_vs_nodes.svg", w.Name + "_bytes_per_iteration.svg"}
}

// DefaultModes is what cape bench NAME runs without --modes: every mode
// of w but complete, which sends the whole arena every iteration.
func (w *Workload) DefaultModes() []Mode {
	return slices.DeleteFunc(slices.Clone(w.Modes), func(m Mode) bool { return m == Complete })
}

// WorkloadByName returns the workload called name, or nil.
func WorkloadByName(name string) *Workload {
	i := slices.IndexFunc(Workloads, func(w *Workload) bool { return w.Name == name })
	if i < 0 {
		return nil
	}
	return Workloads[i]
}

// ParseModes parses a comma-separated list of w's modes; "all" means every
// mode.
func (w *Workload) ParseModes(s string) ([]Mode, error) {
	if strings.TrimSpace(s) == "all" {
		return slices.Clone(w.Modes), nil
	}
	var out []Mode
	for _, f := range strings.Split(s, ",") {
		m := Mode(strings.TrimSpace(f))
		if m == "" {
			continue
		}
		if !slices.Contains(w.Modes, m) {
			return nil, fmt.Errorf("unknown %s mode %q (want one of %s)", w.Name, m, joinModes(w.Modes))
		}
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no mode given")
	}
	return out, nil
}
