package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/cape-go/cape/bench"
)

const benchHelp = `Usage: cape bench matmul [flags]
       cape bench stencil|jacobi|heat3d|cg|power [flags]
       cape bench regions [flags]
       cape bench report DIR
       cape bench build DIR

matmul reproduces the evaluation of the CAPE paper (Table I, Figs. 4-6): the
int64 naive matrix product of examples/matmul, run by every variant on the
same matrices. Every variant must print the same checksum of C; a mismatch
stops the run with an error.

Modes of matmul (--modes, comma-separated, or "all"):

	seq            examples/matmul -seq: one core, no parallel region
	goroutines     the same kernel on goroutines, one node, every core (Table I)
	omp-c          C with OpenMP, gcc -O2 -fopenmp (Table I's reference)
	complete       CAPE through cape run --monitor complete: whole-arena checkpoints
	incremental    CAPE through cape run with the default (incremental) monitor
	mpi-go         hand-written Go message passing over TCP: rows gathered on
	               rank 0 and C sent back to every rank (CAPE's semantics)
	mpi-go-gather  the same without sending C back
	mpi-c          C with Open MPI, MPI_Allgatherv (mpicc, mpirun)

The timed span is the same in every variant: from just before the product
(data filled, connections up) to the master holding C and having sent it to
every node. Repetitions interleave the variants, in an order that changes
from one repetition to the next, so a noisy machine weighs on all alike;
compare variants through the ratios of results.md, taken per repetition.

stencil runs the 2-D Jacobi iterations of examples/stencil (--iters, 100 by
default; sizes 1024,2048 and nodes 1,2,4 by default), the communication-bound
case. Every variant must print the example's line, whose hash covers the bits
of every point of the final grid: a single differing bit stops the run.

Modes of stencil (default: all but complete):

	seq            examples/stencil built by plain go build (directives ignored)
	goroutines     bench/baselines/stencilgo: the rows of each iteration split
	               over goroutines, one node, every core
	incremental    CAPE: cape run of the translated examples/stencil (--monitor)
	complete       the same with --monitor complete (the whole arena every region)
	halo-go        bench/baselines/halogo: hand-written Go over TCP, block rows,
	               each iteration exchanging only the boundary rows with the
	               neighbours, a max-reduction of the change to rank 0, the grid
	               gathered on rank 0 at the end
	halo-c         bench/c/stencil_mpi.c: the same in C with MPI_Sendrecv,
	               MPI_Reduce and MPI_Gatherv (mpicc, mpirun)

The timed span is the iterations (for halo-go and halo-c including the final
gather, so that the root holds the grid as CAPE's master does). results.md
has the times, the paired ratios (incremental / seq, incremental / halo-go,
...), the bytes each node sends and receives per iteration (CAPE's from
--stats, the halo baselines' counted by them) against the two halo rows an
interior node needs, and the --stats breakdown of the CAPE runs per
iteration; figures stencil_time_vs_nodes.svg, stencil_bytes_per_iteration.svg
(the other workloads name theirs after themselves: jacobi_time_vs_nodes.svg, ...).

stencil is edge-heated: the grid is heated from one edge, so most of its
bytes never change. The other workloads keep every byte busy and run the
same modes as stencil (seq, incremental, complete) beside a hand-written Go
message-passing baseline, with the same table, ratios, bytes per iteration
per node and peak RSS per node (every process runs under bench/rsswrap,
which reports wait4's ru_maxrss):

	jacobi   examples/jacobi: stencil's sweep with every point pseudo-random,
	         so every point changes every iteration (n×n grid, --iters 100);
	         baseline halo-go (halogo -active)
	heat3d   examples/heat3d: a 7-point 3-D heat step (n×n×n, --iters 50);
	         baseline mp-go (bench/baselines/mpwork: plane halos)
	cg       examples/cg: conjugate gradients on the CSR 5-point Poisson
	         matrix of an n×n grid, three short regions per iteration, dot
	         products as reductions in fixed point (--iters 300); baseline
	         mp-go (halo of p, allreduce)
	power    examples/power: power iteration on a dense n×n matrix, a max
	         reduction normalising x (--iters 20); baseline mp-go (allreduce,
	         allgather of x)

Every variant of a workload must print the same line (a hash of every bit
of the result). --prebuilt DIR runs matmul and the workloads from binaries
built beforehand, on a machine without a Go toolchain; build them with

	CGO_ENABLED=0 cape bench build DIR       # from the cape module

which writes, for every workload W, W (cape build of examples/W) and W.seq
(plain go build), and stencilgo, halogo, mpwork, rsswrap; for matmul,
matmul (cape build of examples/matmul, also its seq mode), goroutines and
mpigo; and the C references where their compiler is installed: matmul_omp
(gcc -fopenmp -static), matmul_mpi and stencil_mpi (mpicc; they need Open
MPI's mpirun where they run). A C mode whose binary or mpirun is missing is
skipped with a notice; a missing Go binary is an error. Copy DIR and a
static cape (CGO_ENABLED=0 go build ./cmd/cape) to the machine and run,
e.g., cape bench jacobi --prebuilt DIR --nodes 1,2,4,8,15 --out /tmp/jacobi
or cape bench matmul --prebuilt DIR --nodes 1,2,4,8,15 --out /tmp/matmul.

regions measures the fixed cost of a region: bench/regions runs --k regions
(3000 by default) in a row, each writing 64 int64s, under cape run -n N for
every --nodes (1,2,4 by default), and reports microseconds per region
(results.md, regions_us_per_region.svg) beside two TCP round trips measured
after each job: between two processes left where the kernel puts them
(often on one CPU), and between two processes bound to two CPUs, as the
nodes of a job computing on every core are.

DIR (--out) receives results.csv (every sample), results.md, machine.md and
the SVG figures; for matmul: Table I, Figs. 4-6 as tables, the CAPE/MPI
ratios, where CAPE's time goes, the fitted performance model, and
fig4_time_vs_nodes.svg, fig5_time_vs_size.svg, fig6_speedup.svg,
fig6_efficiency.svg. cape bench report DIR redraws any of them from
results.csv.

--emulate runs every node in its own cgroup with a CPU quota (--node-cpus)
and its own network namespace, linked to a bridge by a veth shaped with tc
to --bandwidth: an emulated cluster with more nodes than cores. It needs
root and a cgroup cpu controller (v1 or v2); the sequential reference runs
under the same quota. C variants, mpi-c and halo-c aside (quota only), and
goroutines are not emulated. The C variants are skipped with a notice when
gcc or Open MPI is missing (.ci/bench-setup.sh installs them).

Run it from the cape module (or give --root, or --prebuilt). Examples:

	cape bench matmul --quick --out /tmp/bench               # < 2 minutes on 2 cores
	cape bench matmul --sizes 512,1024,1536 --nodes 1,2 --reps 3 --out bench/results/local
	cape bench matmul --emulate --nodes 1,2,4 --bandwidth 1gbit --sizes 512,1024 --out /tmp/emu
	cape bench stencil --quick --out /tmp/stencil            # sizes 256,512, nodes 1,2,4, 2 reps
	cape bench stencil --sizes 1024,2048 --nodes 1,2,4 --reps 5 --out /tmp/stencil
	cape bench stencil --emulate --nodes 1,2,4 --out /tmp/stencil-emu
	cape bench jacobi --quick --out /tmp/jacobi              # also heat3d, cg, power
	cape bench regions --nodes 2,4 --reps 5 --out /tmp/regions
	cape bench report bench/results/local                     # redo tables and plots from results.csv

Flags:
`

// benchFlags are the values of cape bench's flags.
type benchFlags struct {
	fs                                                    *pflag.FlagSet
	sizes, nodes, modes, out, bw, compress, root, monitor string
	transfer, prebuilt                                    string
	reps, modelNodes, iters, k, maxLost                   int
	quick, emulate, noProgress, noNetns                   bool
	cpus                                                  float64
	timeout                                               time.Duration
}

func newBenchFlags() *benchFlags {
	f := &benchFlags{fs: pflag.NewFlagSet("bench", pflag.ContinueOnError)}
	fs := f.fs
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.sizes, "sizes", "512,1024", "matrix sizes n (matmul), grid sizes n (stencil: default 1024,2048), comma-separated")
	fs.StringVar(&f.nodes, "nodes", "1,2", "node counts for the distributed modes, comma-separated (stencil, regions: default 1,2,4)")
	fs.StringVar(&f.modes, "modes", "seq,goroutines,complete,incremental,mpi-go,mpi-c,omp-c", "variants to run, comma-separated, or all (stencil: default seq,goroutines,incremental,halo-go,halo-c)")
	fs.IntVar(&f.reps, "reps", 3, "repetitions of every variant")
	fs.StringVarP(&f.out, "out", "o", "bench-results", "output directory")
	fs.BoolVar(&f.quick, "quick", false, "a check in minutes: matmul sizes 192,384, nodes 1,2; stencil sizes 256,512; regions --k 500; 2 repetitions")
	fs.BoolVar(&f.emulate, "emulate", false, "run every node in its own cgroup and network namespace (root)")
	fs.Float64Var(&f.cpus, "node-cpus", 0, "CPU quota of an emulated node (default: cores / largest node count)")
	fs.StringVar(&f.bw, "bandwidth", "", "link rate of an emulated node, a tc rate such as 100mbit or 1gbit (default: unlimited)")
	fs.BoolVar(&f.noNetns, "no-netns", false, "emulate CPU quotas only; nodes share the host's loopback")
	fs.StringVar(&f.compress, "compress", "none", "cape run --compress for the CAPE modes: none, auto, s2 or zstd")
	fs.StringVar(&f.root, "root", "", "the cape module's directory (default: found from the working directory)")
	fs.IntVar(&f.modelNodes, "model-nodes", 32, "extrapolate the performance model to this many nodes (matmul)")
	fs.IntVar(&f.iters, "iters", 100, "iterations of every run of stencil and the other workloads (default: the workload's)")
	fs.StringVar(&f.prebuilt, "prebuilt", "", "run matmul, stencil and the other workloads from the binaries in this directory (cape bench build DIR)")
	fs.IntVar(&f.k, "k", 3000, "regions per run of cape bench regions")
	fs.StringVar(&f.monitor, "monitor", "auto", "cape run --monitor of stencil's incremental mode and of regions")
	fs.StringVar(&f.transfer, "transfer", "auto", "cape run --transfer of the CAPE modes (matmul's complete and incremental, stencil's incremental, regions): eager, lazy, auto (the default of cape run) or homes")
	fs.IntVar(&f.maxLost, "max-lost", -1, "cape run --max-lost of the CAPE modes: -1 (no cap, cape run's default) copies what each slave writes to another node under distributed homes; 0 copies nothing (auto is then lazy transfer)")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Minute, "give up on one execution after this long")
	fs.BoolVar(&f.noProgress, "no-progress", false, "no progress bar")
	return f
}

// config is the part of bench.Config common to every benchmark.
func (f *benchFlags) config(args []string, stderr io.Writer) bench.Config {
	cfg := bench.Config{Reps: f.reps, Out: f.out, Root: f.root, Prebuilt: f.prebuilt, Compress: f.compress, Transfer: f.transfer, MaxLost: f.maxLost, Emulate: f.emulate,
		NodeCPUs: f.cpus, Bandwidth: f.bw, NoNetns: f.noNetns, ModelNodes: f.modelNodes, Timeout: f.timeout, Log: stderr,
		Note: "cape bench " + strings.Join(args, " ")}
	if f.quick && !f.fs.Changed("reps") {
		cfg.Reps = 2
	}
	if file, ok := stderr.(*os.File); ok && !f.noProgress {
		if st, err := file.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			cfg.Progress = stderr
		}
	}
	return cfg
}

// defaults sets the flags the user did not give to the benchmark's own
// defaults.
func (f *benchFlags) defaults(sizes, quickSizes, nodes, modes string) {
	set := func(name string, v *string, def string) {
		if !f.fs.Changed(name) && def != "" {
			*v = def
		}
	}
	set("sizes", &f.sizes, sizes)
	if f.quick {
		set("sizes", &f.sizes, quickSizes)
	}
	set("nodes", &f.nodes, nodes)
	set("modes", &f.modes, modes)
}

func benchCmd(args []string, stdout, stderr io.Writer) error {
	f := newBenchFlags()
	if err := f.fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprint(stdout, benchHelp+f.fs.FlagUsages())
			return nil
		}
		return usagef("bench: %v", err)
	}
	rest := f.fs.Args()
	if len(rest) == 0 {
		return usagef("bench: say what to run: cape bench matmul|stencil|jacobi|heat3d|cg|power|regions [flags] (see cape bench --help)")
	}
	w := bench.WorkloadByName(rest[0])
	switch {
	case rest[0] == "report":
		if len(rest) != 2 {
			return usagef("bench report: want one results directory")
		}
		return bench.ReportDir(rest[1], f.modelNodes)
	case rest[0] == "build":
		return benchBuild(f, rest[1:], stdout, stderr)
	case rest[0] == "matmul" || rest[0] == "regions" || w != nil:
		if err := checkTransfer("bench", f.transfer); err != nil {
			return err
		}
	default:
		return usagef("bench: unknown benchmark %q (matmul, stencil, jacobi, heat3d, cg, power, regions, report DIR or build DIR)", rest[0])
	}
	if len(rest) > 1 {
		return usagef("bench %s: unexpected argument %q", rest[0], rest[1])
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch {
	case w != nil:
		return benchStencil(ctx, f, w, args, stdout, stderr)
	case rest[0] == "regions":
		return benchRegions(ctx, f, args, stdout, stderr)
	}
	return benchMatmul(ctx, f, args, stdout, stderr)
}

// report draws a run's tables and plots from its results.csv, as cape
// bench report draws them (the tables then show the rounded values the
// file keeps), and says where they are.
func (f *benchFlags) report(stdout io.Writer, what string, samples int) error {
	if err := bench.ReportDir(f.out, f.modelNodes); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d samples; wrote %s\n", what, samples, filepath.Join(f.out, "results.md"))
	return nil
}

func benchMatmul(ctx context.Context, f *benchFlags, args []string, stdout, stderr io.Writer) error {
	f.defaults("", "192,384", "", "")
	cfg := f.config(args, stderr)
	var err error
	if cfg.Sizes, err = intList(f.sizes); err != nil {
		return usagef("bench: --sizes: %v", err)
	}
	if cfg.Nodes, err = intList(f.nodes); err != nil {
		return usagef("bench: --nodes: %v", err)
	}
	if cfg.Modes, err = bench.ParseModes(f.modes); err != nil {
		return usagef("bench: --modes: %v", err)
	}
	samples, err := bench.Run(ctx, cfg)
	if err != nil {
		return err
	}
	return f.report(stdout, "cape bench", len(samples))
}

// benchStencil runs cape bench stencil or another workload w.
func benchStencil(ctx context.Context, f *benchFlags, w *bench.Workload, args []string, stdout, stderr io.Writer) error {
	defaults := w.DefaultModes()
	modes := make([]string, len(defaults))
	for i, m := range defaults {
		modes[i] = string(m)
	}
	f.defaults(w.Sizes, w.QuickSizes, "1,2,4", strings.Join(modes, ","))
	if !f.fs.Changed("iters") {
		f.iters = w.Iters
	}
	cfg := bench.StencilConfig{Config: f.config(args, stderr), Workload: w, Iters: f.iters, Monitor: f.monitor}
	if f.iters < 1 {
		return usagef("bench %s: --iters %d: want ≥ 1", w.Name, f.iters)
	}
	var err error
	if cfg.Sizes, err = intList(f.sizes); err != nil {
		return usagef("bench %s: --sizes: %v", w.Name, err)
	}
	if cfg.Nodes, err = intList(f.nodes); err != nil {
		return usagef("bench %s: --nodes: %v", w.Name, err)
	}
	if cfg.Modes, err = w.ParseModes(f.modes); err != nil {
		return usagef("bench %s: --modes: %v", w.Name, err)
	}
	samples, err := bench.RunStencil(ctx, cfg)
	if err != nil {
		return err
	}
	return f.report(stdout, "cape bench "+w.Name, len(samples))
}

// benchBuild builds the binaries of every workload into one directory,
// for --prebuilt.
func benchBuild(f *benchFlags, rest []string, stdout, stderr io.Writer) error {
	if len(rest) != 1 {
		return usagef("bench build: want one output directory")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := bench.Prebuild(ctx, f.root, rest[0], stderr); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "cape bench build: wrote the binaries of matmul and %d workloads into %s\n", len(bench.Workloads), rest[0])
	return nil
}

func benchRegions(ctx context.Context, f *benchFlags, args []string, stdout, stderr io.Writer) error {
	f.defaults("", "", "1,2,4", "")
	if f.fs.Changed("sizes") || f.fs.Changed("modes") {
		return usagef("bench regions: no --sizes or --modes (it runs --k regions under cape run on each of --nodes)")
	}
	cfg := bench.RegionsConfig{Config: f.config(args, stderr), K: f.k, Monitor: f.monitor}
	if f.quick && !f.fs.Changed("k") {
		cfg.K = 500
	}
	if cfg.K < 1 {
		return usagef("bench regions: --k %d: want ≥ 1", cfg.K)
	}
	var err error
	if cfg.Nodes, err = intList(f.nodes); err != nil {
		return usagef("bench regions: --nodes: %v", err)
	}
	samples, err := bench.RunRegions(ctx, cfg)
	if err != nil {
		return err
	}
	return f.report(stdout, "cape bench regions", len(samples))
}

func intList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil || v < 1 {
			return nil, fmt.Errorf("%q is not a positive integer", f)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, errors.New("empty list")
	}
	return out, nil
}
