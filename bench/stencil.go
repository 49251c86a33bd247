package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/cape-go/cape/internal/nodeenv"
)

// The message-passing variants of the stencil benchmark (`cape bench
// stencil`); it also runs Seq, Goroutines, Incremental and Complete.
const (
	HaloGo Mode = "halo-go" // hand-written Go, halo rows over TCP (bench/baselines/halogo)
	HaloC  Mode = "halo-c"  // C with MPI, halo rows by MPI_Sendrecv (bench/c/stencil_mpi.c)
)

// StencilConfig describes a run of the stencil benchmark or of another
// Workload: Config's sizes are the workload's sizes n, its modes the
// workload's modes.
type StencilConfig struct {
	Config
	Workload *Workload // nil means Stencil
	Iters    int       // iterations of every run; 0 means the workload's default
	Monitor  string    // cape run --monitor of the incremental mode; "" means auto
}

// StencilSample is one execution of one variant of the stencil benchmark.
// Times are seconds; byte counts are per iteration.
type StencilSample struct {
	Workload           string // the Workload's name; "" (old results) means stencil
	Size, Iters, Nodes int
	Mode               Mode
	Rep                int
	Emulated           bool
	NodeCPUs           float64 // CPU quota of a node when emulated, else 0
	Bandwidth          string  // link rate when emulated, else ""
	Seconds            float64 // the iterations, as the variant times them
	Wall               float64 // the whole execution as seen by the harness
	Line               string  // the output line: sums, last diff and hash of the grid

	// The master's (rank 0's) totals over the iterations: CAPE from
	// cape run --stats (compute, create, the exchange's wait, merge/inject
	// and send), the halo baselines compute and Comm only.
	Compute, MaxCompute, Create, Wait, Merge, Send, Comm float64
	Pages                                                float64 // the master's dirty pages per region (CAPE)

	// Bytes per iteration on the master's (rank 0's) sockets, and the
	// mean over the other nodes.
	MasterSent, MasterRecv, OtherSent, OtherRecv float64

	// Peak resident set sizes in bytes (bench/rsswrap): the master's
	// (rank 0's, or the one process of seq) and the largest of the other
	// nodes'; 0 when not measured.
	MasterRSS, OtherRSS float64
}

// stencilPlan lists the cells of one size, in the order of the first
// repetition: goroutines alone, then for every node count the sequential
// loop (its cell's nodes says which group it belongs to) beside the
// distributed variants, so that the ratios to seq that the goals are about
// pair runs made back to back, as the ratios between distributed variants do.
func stencilPlan(cfg *Config, size int, have func(Mode) bool) [][]cell {
	var groups [][]cell
	if slices.Contains(cfg.Modes, Goroutines) && have(Goroutines) {
		groups = append(groups, []cell{{size, 1, Goroutines}})
	}
	for _, k := range cfg.Nodes {
		var g []cell
		for _, m := range cfg.Modes {
			if have(m) && (m == Seq || m.distributed()) {
				g = append(g, cell{size, k, m})
			}
		}
		if len(g) > 0 {
			groups = append(groups, g)
		}
	}
	return groups
}

// stencilCost estimates the relative duration of a cell, for the progress
// bar: the points swept, times how much slower CAPE is today.
func stencilCost(w *Workload, c cell, iters int) float64 {
	work := w.points(c.size) * float64(iters)
	switch c.mode {
	case Goroutines:
		work /= float64(runtime.NumCPU())
	case Incremental, Complete:
		work *= 4 * float64(c.nodes)
	case HaloGo, HaloC, MPGo:
		work /= float64(c.nodes)
	}
	return work + 5e6
}

// RunStencil builds the variants of cfg's workload (or takes them from
// cfg.Prebuilt), runs the plan (every size, repetition,
// node count and mode, interleaved as Run does for matmul), writes
// results.csv into cfg.Out and returns the samples. It fails on the first
// run whose output line differs from the first one of its size (a
// *ChecksumError), after writing what it measured.
func RunStencil(ctx context.Context, cfg StencilConfig) ([]StencilSample, error) {
	if err := cfg.prepare(); err != nil {
		return nil, fmt.Errorf("bench stencil: %w", err)
	}
	cl, err := cfg.emulatedCluster(ctx)
	if err != nil {
		return nil, fmt.Errorf("bench stencil: %w", err)
	}
	defer cl.closeLogged(cfg.Log)
	bins, err := stencilBinaries(ctx, &cfg)
	if bins != nil && bins.tmp != "" {
		defer os.RemoveAll(bins.tmp)
	}
	if err != nil {
		return nil, fmt.Errorf("bench stencil: %w", err)
	}
	if err := writeMachine(&cfg.Config, &binaries{mpirun: bins.mpirun}); err != nil {
		return nil, fmt.Errorf("bench stencil: %w", err)
	}
	if err := appendMachine(cfg.Out, fmt.Sprintf("%s: %d iterations per run; monitor of the incremental mode: %s; binaries %s.\n", cfg.Workload.Name, cfg.Iters, cfg.Monitor, cfg.binariesFrom())); err != nil {
		return nil, fmt.Errorf("bench stencil: %w", err)
	}
	var all []cell
	total := 0.0
	for _, n := range cfg.Sizes {
		cells := stencilPlan(&cfg.Config, n, bins.have)
		for r := 0; r < cfg.Reps; r++ {
			for _, c := range rotate(cells, r) {
				all = append(all, c)
				total += stencilCost(cfg.Workload, c, cfg.Iters)
			}
		}
	}
	bar := newProgress(cfg.Progress, total)
	defer bar.finish()
	csvPath := filepath.Join(cfg.Out, "results.csv")
	var samples []StencilSample
	first := map[int]StencilSample{}
	for _, c := range all {
		bar.start(c.String())
		s, err := runStencilCell(ctx, &cfg, bins, cl, c)
		if err == nil {
			s.Rep = countStencilRep(samples, c)
			samples = append(samples, s)
			err = sameLine(first, s)
		} else {
			err = fmt.Errorf("bench stencil: %s: %w", c, err)
		}
		// Keep results.csv current, so an interrupted run keeps its samples.
		if werr := writeStencilCSV(csvPath, samples); werr != nil {
			return samples, errors.Join(err, fmt.Errorf("bench stencil: %w", werr))
		}
		if err != nil {
			return samples, err
		}
		bar.done(stencilCost(cfg.Workload, c, cfg.Iters), s.Seconds)
	}
	return samples, nil
}

// prepare fills the defaults of cfg and checks it.
func (cfg *StencilConfig) prepare() error {
	if cfg.Workload == nil {
		cfg.Workload = Stencil
	}
	w := cfg.Workload
	if cfg.Iters == 0 {
		cfg.Iters = w.Iters
	}
	if cfg.Monitor == "" {
		cfg.Monitor = "auto"
	}
	if cfg.Iters < 0 {
		return fmt.Errorf("iterations %d: want ≥ 1", cfg.Iters)
	}
	if err := cfg.fill(); err != nil {
		return err
	}
	for _, m := range cfg.Modes {
		if !slices.Contains(w.Modes, m) {
			return fmt.Errorf("mode %s is not a %s mode (want one of %s)", m, w.Name, joinModes(w.Modes))
		}
	}
	for _, n := range cfg.Sizes {
		if k := slicesMax(cfg.Nodes); n < w.minSize(k) {
			return fmt.Errorf("size %d: %s needs at least %d to split over %d nodes", n, w.Name, w.minSize(k), k)
		}
	}
	if cfg.Root == "" && cfg.Prebuilt == "" {
		root, err := ModuleRoot(".")
		if err != nil {
			return err
		}
		cfg.Root = root
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return err
	}
	return nil
}

// emulatedCluster sets up the emulated cluster when cfg asks for one; it returns nil
// otherwise, after a notice if the node counts exceed the cores.
func (cfg *Config) emulatedCluster(ctx context.Context) (*cluster, error) {
	if !cfg.Emulate {
		if n := slicesMax(cfg.Nodes); n > runtime.NumCPU() {
			fmt.Fprintf(cfg.Log, "bench: notice: %d nodes on %d cores share the cores; use --emulate for an emulated cluster with per-node CPU quotas\n", n, runtime.NumCPU())
		}
		return nil, nil
	}
	cl, err := newCluster(ctx, cfg, slicesMax(cfg.Nodes))
	if err != nil {
		return nil, fmt.Errorf("emulated cluster: %w", err)
	}
	return cl, nil
}

// closeLogged tears down c, if any, logging a failure.
func (c *cluster) closeLogged(log io.Writer) {
	if c == nil {
		return
	}
	if err := c.Close(); err != nil {
		fmt.Fprintf(log, "bench: tearing down the emulated cluster: %v\n", err)
	}
}

// binariesFrom says where the binaries of a run come from, for machine.md.
func (cfg *Config) binariesFrom() string {
	if cfg.Prebuilt != "" {
		return "prebuilt, from " + cfg.Prebuilt
	}
	return "built from the module"
}

// appendMachine adds text to the machine.md of dir.
func appendMachine(dir, text string) error {
	f, err := os.OpenFile(filepath.Join(dir, "machine.md"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("write machine.md: %w", err)
	}
	_, err = f.WriteString("\n" + text)
	if err := errors.Join(err, f.Close()); err != nil {
		return fmt.Errorf("write machine.md: %w", err)
	}
	return nil
}

// sameLine checks that s printed the line of the first sample of its size
// in first, recording s there if it is the first.
func sameLine(first map[int]StencilSample, s StencilSample) error {
	f, ok := first[s.Size]
	if !ok {
		first[s.Size] = s
		return nil
	}
	if f.Line != s.Line {
		return &ChecksumError{Size: s.Size, Want: f.Line, Got: s.Line,
			First: cell{f.Size, f.Nodes, f.Mode}.String(), Bad: cell{s.Size, s.Nodes, s.Mode}.String()}
	}
	return nil
}

func countStencilRep(samples []StencilSample, c cell) int {
	r := 0
	for _, s := range samples {
		if s.Size == c.size && s.Nodes == c.nodes && s.Mode == c.mode {
			r++
		}
	}
	return r
}

// runStencilCell executes one cell and parses its output.
func runStencilCell(ctx context.Context, cfg *StencilConfig, bins *stencilBins, cl *cluster, c cell) (StencilSample, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	s := StencilSample{Workload: cfg.Workload.Name, Size: c.size, Iters: cfg.Iters, Nodes: c.nodes, Mode: c.mode}
	emulated := cl != nil && c.mode != Goroutines
	if emulated {
		s.Emulated, s.NodeCPUs, s.Bandwidth = true, cfg.NodeCPUs, cfg.Bandwidth
	}
	args := []string{"-n", strconv.Itoa(c.size), "-iters", strconv.Itoa(cfg.Iters)}
	var stdout, stderr bytes.Buffer
	start := time.Now()
	var err error
	// Every process but mpirun's runs under bins.rsswrap, when there is
	// one, for its peak RSS: prog is the program and its arguments.
	prog := func(bin string, args ...string) []string { return append(append(bins.rss(), bin), args...) }
	switch c.mode {
	case Seq:
		err = runProc(ctx, slices.Concat(cl.wrap(emulated, 0, true), bins.rss()), bins.plain, args, nil, &stdout, &stderr)
	case Goroutines:
		err = runProc(ctx, bins.rss(), bins.gor, append(args, "-workers", strconv.Itoa(runtime.NumCPU())), nil, &stdout, &stderr)
	case Incremental, Complete:
		monitor := cfg.Monitor
		if c.mode == Complete {
			monitor = "complete"
		}
		p := prog(bins.cape, args...)
		err = capeJob(ctx, &cfg.Config, cl, emulated, p[0], p[1:], c.nodes,
			nodeenv.Config{Monitor: monitor, Compress: cfg.Compress, Stats: true, Timeout: "60s", Transfer: cfg.Transfer, MaxLost: cfg.MaxLost}, &stdout, &stderr)
	case HaloGo, MPGo:
		p := prog(bins.baseline, append(slices.Clone(cfg.Workload.BaselineArgs), args...)...)
		_, err = runRanks(ctx, cl, emulated, c.nodes, p[0], func(rank int, addr string) []string {
			return append(slices.Clone(p[1:]), "-rank", strconv.Itoa(rank), "-size", strconv.Itoa(c.nodes), "-addr", addr)
		}, &stdout, &stderr)
	case HaloC:
		err = runMPIRun(ctx, bins.mpirun, cl, emulated, c.nodes, bins.haloc, args, &stdout, &stderr)
	default:
		err = fmt.Errorf("mode %s not runnable", c.mode)
	}
	s.Wall = time.Since(start).Seconds()
	if err != nil {
		return s, fmt.Errorf("%w\n%s", err, tail(stderr.String(), 2000))
	}
	if err := parseStencil(&s, stdout.String(), stderr.String()); err != nil {
		return s, fmt.Errorf("%w\nstdout: %s\nstderr: %s", err, tail(stdout.String(), 500), tail(stderr.String(), 2000))
	}
	return s, nil
}

// orEager names the transfer mode "" stands for.
func orEager(t string) string {
	if t == "" {
		return "eager"
	}
	return t
}
