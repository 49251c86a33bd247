package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cape-go/cape/internal/launch"
	"github.com/cape-go/cape/internal/nodeenv"
)

// Sample is one execution of one variant.
type Sample struct {
	Size, Nodes int
	Mode        Mode
	Rep         int
	Emulated    bool
	NodeCPUs    float64 // CPU quota of a node when emulated, else 0
	Bandwidth   string  // link rate when emulated, else ""
	Seconds     float64 // the timed span reported by the variant (see RESULTS.md)
	Wall        float64 // the whole execution as seen by the harness
	Checksum    string

	// From the master's cape --stats line (CAPE modes only).
	Create, Exchange float64 // seconds
	DeltaBytes       int64   // the master's own delta
	Sent, Received   int64   // bytes on the master's sockets
	MaxCompute       float64 // slowest node's compute time, seconds
	// The master's (rank 0's) own compute time, and the parts of its
	// exchange (cape run --stats): waiting for the slaves' deltas (the
	// slowest node's extra compute shows here), decoding + merging +
	// injecting, encoding + sending the merged delta. For mpi-go only
	// Compute is set (rank 0's share of the product).
	Compute, Wait, Merge, Send float64 // seconds

	// Comm is the master's time after its own share of the product:
	// create + exchange for CAPE, gather (+ broadcast) for mpi-go.
	Comm float64
}

// ChecksumError reports two variants that computed different products.
type ChecksumError struct {
	Size       int
	Want, Got  string
	First, Bad string // the variants
}

func (e *ChecksumError) Error() string {
	return fmt.Sprintf("checksum mismatch for n=%d: %s printed %s but %s printed %s", e.Size, e.First, e.Want, e.Bad, e.Got)
}

// cell is one (size, mode, nodes) point of the plan.
type cell struct {
	size, nodes int
	mode        Mode
}

func (c cell) String() string {
	if c.mode.distributed() {
		return fmt.Sprintf("n=%d %s×%d", c.size, c.mode, c.nodes)
	}
	return fmt.Sprintf("n=%d %s", c.size, c.mode)
}

// plan lists the cells of one size, in the order of the first repetition:
// the one-node variants, then, for every node count, the distributed
// variants side by side, so that the variants compared in a ratio run next
// to each other and see the same load on a shared machine.
func plan(cfg *Config, size int, have func(Mode) bool) [][]cell {
	var one []cell
	for _, m := range cfg.Modes {
		if have(m) && !m.distributed() {
			one = append(one, cell{size, 1, m})
		}
	}
	groups := [][]cell{}
	if len(one) > 0 {
		groups = append(groups, one)
	}
	for _, k := range cfg.Nodes {
		var g []cell
		for _, m := range cfg.Modes {
			if have(m) && m.distributed() {
				g = append(g, cell{size, k, m})
			}
		}
		if len(g) > 0 {
			groups = append(groups, g)
		}
	}
	return groups
}

// rotate orders the groups for repetition r: the groups and the cells
// inside each group are rotated by r, and reversed on odd r, so that every
// variant runs early and late, before and after its neighbours.
func rotate(groups [][]cell, r int) []cell {
	var out []cell
	for gi := range groups {
		g := groups[(gi+r)%len(groups)]
		rg := make([]cell, 0, len(g))
		for i := range g {
			rg = append(rg, g[(i+r)%len(g)])
		}
		if r%2 == 1 {
			slices.Reverse(rg)
		}
		out = append(out, rg...)
	}
	return out
}

// cost estimates the relative duration of a cell, for the progress bar.
func cost(c cell) float64 {
	n := float64(c.size)
	k := float64(c.nodes)
	if c.mode == Goroutines || c.mode == OMPC {
		k = float64(runtime.NumCPU())
	}
	return n*n*n/k + 2e7
}

// Run builds the variants, runs the plan, writes results.csv into cfg.Out
// and returns the samples. It fails on the first checksum mismatch (a
// *ChecksumError), after writing what it measured.
func Run(ctx context.Context, cfg Config) ([]Sample, error) {
	if err := cfg.fill(); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	if cfg.Root == "" && cfg.Prebuilt == "" {
		root, err := ModuleRoot(".")
		if err != nil {
			return nil, fmt.Errorf("bench: %w", err)
		}
		cfg.Root = root
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	var cl *cluster
	if cfg.Emulate {
		var err error
		if cl, err = newCluster(ctx, &cfg, slicesMax(cfg.Nodes)); err != nil {
			return nil, fmt.Errorf("bench: emulated cluster: %w", err)
		}
		defer func() {
			if err := cl.Close(); err != nil {
				fmt.Fprintf(cfg.Log, "bench: tearing down the emulated cluster: %v\n", err)
			}
		}()
	} else if n := slicesMax(cfg.Nodes); n > runtime.NumCPU() {
		fmt.Fprintf(cfg.Log, "bench: notice: %d nodes on %d cores share the cores; use --emulate for an emulated cluster with per-node CPU quotas\n", n, runtime.NumCPU())
	}
	bins, err := build(ctx, &cfg)
	if bins != nil && bins.tmp != "" {
		defer os.RemoveAll(bins.tmp)
	}
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	if err := writeMachine(&cfg, bins); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	if err := appendMachine(cfg.Out, "matmul: binaries "+cfg.binariesFrom()+".\n"); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}

	var all [][]cell
	total := 0.0
	for _, n := range cfg.Sizes {
		cells := plan(&cfg, n, bins.have)
		for r := 0; r < cfg.Reps; r++ {
			rc := rotate(cells, r)
			all = append(all, rc)
			for _, c := range rc {
				total += cost(c)
			}
		}
	}
	bar := newProgress(cfg.Progress, total)
	defer bar.finish()
	var samples []Sample
	sums := map[int]Sample{}
	fail := func(err error) ([]Sample, error) {
		if werr := writeCSV(filepath.Join(cfg.Out, "results.csv"), samples); werr != nil {
			err = errors.Join(err, werr)
		}
		return samples, err
	}
	for _, cells := range all {
		for _, c := range cells {
			bar.start(c.String())
			s, err := runCell(ctx, &cfg, bins, cl, c)
			if err != nil {
				return fail(fmt.Errorf("bench: %s: %w", c, err))
			}
			s.Rep = countRep(samples, c)
			samples = append(samples, s)
			if first, ok := sums[c.size]; !ok {
				sums[c.size] = s
			} else if first.Checksum != s.Checksum {
				return fail(&ChecksumError{Size: c.size, Want: first.Checksum, Got: s.Checksum,
					First: cell{first.Size, first.Nodes, first.Mode}.String(), Bad: c.String()})
			}
			bar.done(cost(c), s.Seconds)
			// Keep results.csv current, so an interrupted run keeps its samples.
			if err := writeCSV(filepath.Join(cfg.Out, "results.csv"), samples); err != nil {
				return samples, fmt.Errorf("bench: %w", err)
			}
		}
	}
	if err := writeCSV(filepath.Join(cfg.Out, "results.csv"), samples); err != nil {
		return samples, fmt.Errorf("bench: %w", err)
	}
	return samples, nil
}

func countRep(samples []Sample, c cell) int {
	r := 0
	for _, s := range samples {
		if s.Size == c.size && s.Nodes == c.nodes && s.Mode == c.mode {
			r++
		}
	}
	return r
}

func slicesMax(s []int) int {
	m := 0
	for _, v := range s {
		m = max(m, v)
	}
	return m
}

func (b *binaries) have(m Mode) bool {
	switch m {
	case Seq, Complete, Incremental:
		return b.matmul != ""
	case Goroutines:
		return b.goroutines != ""
	case MPIGo, MPIGoGather:
		return b.mpigo != ""
	case OMPC:
		return b.omp != ""
	case MPIC:
		return b.mpic != ""
	}
	return false
}

// runCell executes one cell and parses its output.
func runCell(ctx context.Context, cfg *Config, bins *binaries, cl *cluster, c cell) (Sample, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	s := Sample{Size: c.size, Nodes: c.nodes, Mode: c.mode}
	emulated := cl != nil && c.mode != Goroutines && c.mode != OMPC
	if emulated {
		s.Emulated, s.NodeCPUs, s.Bandwidth = true, cfg.NodeCPUs, cfg.Bandwidth
	}
	nflag := []string{"-n", strconv.Itoa(c.size)}
	var stdout, stderr bytes.Buffer
	start := time.Now()
	var err error
	switch c.mode {
	case Seq:
		err = runProc(ctx, cl.wrap(emulated, 0, true), bins.matmul, append([]string{"-seq"}, nflag...), nil, &stdout, &stderr)
	case Goroutines:
		err = runProc(ctx, nil, bins.goroutines, append(nflag, "-workers", strconv.Itoa(runtime.NumCPU())), nil, &stdout, &stderr)
	case OMPC:
		err = runProc(ctx, nil, bins.omp, nflag, []string{"OMP_NUM_THREADS=" + strconv.Itoa(runtime.NumCPU())}, &stdout, &stderr)
	case Complete, Incremental:
		err = runCAPE(ctx, cfg, bins, cl, c, emulated, &stdout, &stderr)
	case MPIGo, MPIGoGather:
		err = runMPIGo(ctx, bins, cl, c, emulated, &stdout, &stderr)
	case MPIC:
		err = runMPIRun(ctx, bins.mpirun, cl, emulated, c.nodes, bins.mpic, nflag, &stdout, &stderr)
	default:
		err = fmt.Errorf("mode %s not runnable", c.mode)
	}
	s.Wall = time.Since(start).Seconds()
	if err != nil {
		return s, fmt.Errorf("%w\n%s", err, tail(stderr.String(), 2000))
	}
	if err := parseOutput(&s, stdout.String(), stderr.String()); err != nil {
		return s, fmt.Errorf("%w\nstdout: %s\nstderr: %s", err, tail(stdout.String(), 500), tail(stderr.String(), 2000))
	}
	return s, nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// runProc runs bin with args, behind the prefix (an emulation wrapper) if
// any, in its own process group that is killed when ctx ends.
func runProc(ctx context.Context, prefix []string, bin string, args, env []string, stdout, stderr *bytes.Buffer) error {
	argv := append(append(append([]string{}, prefix...), bin), args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(cleanEnv(), env...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	setGroup(cmd)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(bin), err)
	}
	return nil
}

// cleanEnv is the environment without the variables of a CAPE node, in
// case cape bench itself runs under a launcher.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CAPE_") && !strings.HasPrefix(kv, "BENCH_") {
			env = append(env, kv)
		}
	}
	return env
}

// runCAPE runs examples/matmul through the launcher of cape run.
func runCAPE(ctx context.Context, cfg *Config, bins *binaries, cl *cluster, c cell, emulated bool, stdout, stderr *bytes.Buffer) error {
	monitor := "auto"
	if c.mode == Complete {
		monitor = "complete"
	}
	return capeJob(ctx, cfg, cl, emulated, bins.matmul, []string{"-n", strconv.Itoa(c.size)}, c.nodes,
		nodeenv.Config{Monitor: monitor, Compress: cfg.Compress, Stats: true, Timeout: "60s", Transfer: cfg.Transfer, MaxLost: cfg.MaxLost}, stdout, stderr)
}

// capeJob runs bin with args on nodes nodes through the launcher of cape
// run, every node in the emulated cluster when emulated.
func capeJob(ctx context.Context, cfg *Config, cl *cluster, emulated bool, bin string, args []string, nodes int, node nodeenv.Config, stdout, stderr *bytes.Buffer) error {
	spec := launch.Spec{Binary: bin, Args: args, Nodes: nodes, Stdout: stdout, Stderr: stderr, Node: node}
	if emulated {
		w := cl.wrap(true, -1, true)
		spec.Binary, spec.Args = w[0], append(append(w[1:], bin), spec.Args...)
		spec.Env = append(spec.Env, "BENCH_PORT="+strconv.Itoa(cl.port()))
	}
	err := launch.Local(ctx, spec)
	var ee *launch.ExitError
	if errors.As(err, &ee) {
		// Not wrapped: cape's main would take a wrapped *launch.ExitError
		// for its own job's outcome and print only its message.
		return fmt.Errorf("cape job: %s", ee.Msg)
	}
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	return err
}

// runMPIGo runs the Go message-passing baseline on c.nodes ranks.
func runMPIGo(ctx context.Context, bins *binaries, cl *cluster, c cell, emulated bool, stdout, stderr *bytes.Buffer) error {
	outs, err := runRanks(ctx, cl, emulated, c.nodes, bins.mpigo, func(rank int, addr string) []string {
		args := []string{"-n", strconv.Itoa(c.size), "-rank", strconv.Itoa(rank), "-size", strconv.Itoa(c.nodes), "-addr", addr}
		if c.mode == MPIGoGather {
			args = append(args, "-gather-only")
		}
		return args
	}, stdout, stderr)
	if err != nil {
		return err
	}
	// Every rank of the gather+broadcast variant must hold the same C.
	for r := 1; r < c.nodes && c.mode == MPIGo; r++ {
		if got, want := checksumOf(outs[r]), checksumOf(outs[0]); got != want {
			return fmt.Errorf("rank %d ended with C checksum %q, rank 0 with %q", r, got, want)
		}
	}
	return nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

var (
	sumRE   = regexp.MustCompile(`(?m)^matmul n=(\d+) checksum=([0-9a-f]{16})$`)
	timeRE  = regexp.MustCompile(`matmul: parallel part ([0-9.]+)s`)
	commRE  = regexp.MustCompile(`mpigo: compute ([0-9.]+)s, communication ([0-9.]+)s`)
	statsRE = regexp.MustCompile(`cape: (master|node \d+): region .*: (?:start \S+, )?compute (\S+), create (\S+) \((\d+) pages, (\d+) bytes\), exchange (\S+)(?: = wait (\S+) \+ merge/inject (\S+) \+ send (\S+))? \(sent (\d+), received (\d+) bytes\)`)
)

func checksumOf(stdout string) string {
	if m := sumRE.FindStringSubmatch(stdout); m != nil {
		return m[2]
	}
	return ""
}

// parseOutput fills the checksum, the time and the CAPE statistics of s.
func parseOutput(s *Sample, stdout, stderr string) error {
	m := sumRE.FindStringSubmatch(stdout)
	if m == nil {
		return errors.New("no `matmul n=N checksum=…` line on stdout")
	}
	if m[1] != strconv.Itoa(s.Size) {
		return fmt.Errorf("output is for n=%s, want n=%d", m[1], s.Size)
	}
	s.Checksum = m[2]
	t := timeRE.FindStringSubmatch(stderr)
	if t == nil {
		return errors.New("no `matmul: parallel part Xs` line on stderr")
	}
	var err error
	if s.Seconds, err = strconv.ParseFloat(t[1], 64); err != nil {
		return fmt.Errorf("parallel part %q: %w", t[1], err)
	}
	for _, st := range statsRE.FindAllStringSubmatch(stderr, -1) {
		compute, _ := time.ParseDuration(st[2])
		s.MaxCompute = max(s.MaxCompute, compute.Seconds())
		if st[1] != "master" {
			continue
		}
		create, _ := time.ParseDuration(st[3])
		exch, _ := time.ParseDuration(st[6])
		s.Create, s.Exchange = create.Seconds(), exch.Seconds()
		s.DeltaBytes, _ = strconv.ParseInt(st[5], 10, 64)
		s.Compute = compute.Seconds()
		if st[7] != "" { // the split of --stats since the exchange has parts
			w, _ := time.ParseDuration(st[7])
			mg, _ := time.ParseDuration(st[8])
			sd, _ := time.ParseDuration(st[9])
			s.Wait, s.Merge, s.Send = w.Seconds(), mg.Seconds(), sd.Seconds()
		}
		s.Sent, _ = strconv.ParseInt(st[10], 10, 64)
		s.Received, _ = strconv.ParseInt(st[11], 10, 64)
		s.Comm = s.Create + s.Exchange
	}
	if cm := commRE.FindStringSubmatch(stderr); cm != nil {
		s.Compute, _ = strconv.ParseFloat(cm[1], 64)
		s.MaxCompute = s.Compute // rank 0's: the others do not report
		s.Comm, _ = strconv.ParseFloat(cm[2], 64)
	}
	return nil
}
