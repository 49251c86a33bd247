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
       cape bench report [--model-nodes N] DIR

Bench reproduces the evaluation of the CAPE paper (Table I, Figs. 4-6): the
int64 naive matrix product of examples/matmul, run by every variant on the
same matrices. Every variant must print the same checksum of C; a mismatch
stops the run with an error.

Modes (--modes, comma-separated, or "all"):

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

DIR (--out) receives results.csv (every sample), results.md (Table I,
Figs. 4-6 as tables, the CAPE/MPI ratios, where CAPE's time goes, the fitted
performance model), machine.md and the SVG figures fig4_time_vs_nodes.svg,
fig5_time_vs_size.svg, fig6_speedup.svg and fig6_efficiency.svg.

--emulate runs every node in its own cgroup with a CPU quota (--node-cpus)
and its own network namespace, linked to a bridge by a veth shaped with tc
to --bandwidth: an emulated cluster with more nodes than cores. It needs
root and a cgroup cpu controller (v1 or v2); the sequential reference runs
under the same quota. C variants, mpi-c aside (quota only), are not emulated.
The C variants are skipped with a notice when gcc or Open MPI is missing
(.ci/bench-setup.sh installs them).

Run it from the cape module (or give --root). Examples:

	cape bench matmul --quick --out /tmp/bench               # < 2 minutes on 2 cores
	cape bench matmul --sizes 512,1024,1536 --nodes 1,2 --reps 3 --out bench/results/local
	cape bench matmul --emulate --nodes 1,2,4 --bandwidth 1gbit --sizes 512,1024 --out /tmp/emu
	cape bench report bench/results/local                     # redo tables and plots from results.csv

Flags:
`

func benchCmd(args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("bench", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		sizes, nodes, modes, out, bw, compress, root string
		reps, modelNodes                             int
		quick, emulate, noProgress, noNetns          bool
		cpus                                         float64
		timeout                                      time.Duration
	)
	fs.StringVar(&sizes, "sizes", "512,1024", "matrix sizes n, comma-separated")
	fs.StringVar(&nodes, "nodes", "1,2", "node counts for the distributed modes, comma-separated")
	fs.StringVar(&modes, "modes", "seq,goroutines,complete,incremental,mpi-go,mpi-c,omp-c", "variants to run, comma-separated, or all")
	fs.IntVar(&reps, "reps", 3, "repetitions of every variant")
	fs.StringVarP(&out, "out", "o", "bench-results", "output directory")
	fs.BoolVar(&quick, "quick", false, "small sizes (192,384), nodes 1,2, 2 repetitions: a check in under 2 minutes")
	fs.BoolVar(&emulate, "emulate", false, "run every node in its own cgroup and network namespace (root)")
	fs.Float64Var(&cpus, "node-cpus", 0, "CPU quota of an emulated node (default: cores / largest node count)")
	fs.StringVar(&bw, "bandwidth", "", "link rate of an emulated node, a tc rate such as 100mbit or 1gbit (default: unlimited)")
	fs.BoolVar(&noNetns, "no-netns", false, "emulate CPU quotas only; nodes share the host's loopback")
	fs.StringVar(&compress, "compress", "none", "cape run --compress for the CAPE modes: none, auto, s2 or zstd")
	fs.StringVar(&root, "root", "", "the cape module's directory (default: found from the working directory)")
	fs.IntVar(&modelNodes, "model-nodes", 32, "extrapolate the performance model to this many nodes")
	fs.DurationVar(&timeout, "timeout", 30*time.Minute, "give up on one execution after this long")
	fs.BoolVar(&noProgress, "no-progress", false, "no progress bar")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprint(stdout, benchHelp+fs.FlagUsages())
			return nil
		}
		return usagef("bench: %v", err)
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return usagef("bench: say what to run: cape bench matmul [flags] (see cape bench --help)")
	}
	switch rest[0] {
	case "report":
		if len(rest) != 2 {
			return usagef("bench report: want one results directory")
		}
		samples, err := bench.ReadCSV(filepath.Join(rest[1], "results.csv"))
		if err != nil {
			return err
		}
		return bench.Report(rest[1], samples, modelNodes)
	case "matmul":
	default:
		return usagef("bench: unknown benchmark %q (only matmul, or report DIR)", rest[0])
	}
	if len(rest) > 1 {
		return usagef("bench matmul: unexpected argument %q", rest[1])
	}
	cfg := bench.Config{Reps: reps, Out: out, Root: root, Compress: compress, Emulate: emulate,
		NodeCPUs: cpus, Bandwidth: bw, NoNetns: noNetns, ModelNodes: modelNodes, Timeout: timeout, Log: stderr,
		Note: "cape bench " + strings.Join(args, " ")}
	if quick {
		if !fs.Changed("sizes") {
			sizes = "192,384"
		}
		if !fs.Changed("reps") {
			cfg.Reps = 2
		}
	}
	var err error
	if cfg.Sizes, err = intList(sizes); err != nil {
		return usagef("bench: --sizes: %v", err)
	}
	if cfg.Nodes, err = intList(nodes); err != nil {
		return usagef("bench: --nodes: %v", err)
	}
	if cfg.Modes, err = bench.ParseModes(modes); err != nil {
		return usagef("bench: --modes: %v", err)
	}
	if f, ok := stderr.(*os.File); ok && !noProgress {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			cfg.Progress = stderr
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	samples, err := bench.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if err := bench.Report(out, samples, modelNodes); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "cape bench: %d samples; wrote %s\n", len(samples), filepath.Join(out, "results.md"))
	return nil
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
