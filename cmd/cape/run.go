package main

import (
	"context"
	"debug/buildinfo"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	capesrc "github.com/cape-go/cape"
	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/internal/arena"
	"github.com/cape-go/cape/internal/gocmd"
	"github.com/cape-go/cape/internal/launch"
	"github.com/cape-go/cape/internal/nodeenv"
	"github.com/cape-go/cape/monitor"
)

const runHelp = `Usage: cape run [flags] PACKAGE|BINARY [--] [program arguments]

Builds PACKAGE (a directory or import path, annotated or not) and runs it as a
CAPE job: node 0 is the master, the others are slaves. The job's output is the
master's; slaves' stderr is shown prefixed with their rank (their stdout is not
the job's output: see --slave-output). A slave that fails, hangs or loses its
connection is reported and its work re-executed by the surviving nodes, up to
--max-lost slaves; cape run then exits 0 when the job completed. The master's
failure, or one loss too many, stops every node and exits non-zero naming the
node. Ctrl-C stops every node.

Flags go before PACKAGE; everything after PACKAGE is passed to the program.

Examples:

	cape run -n 4 ./examples/matmul -- -n 1024
	cape run -n 2 --monitor compare --stats ./examples/matmul -- -n 300
	cape run -n 4 --checkpoint ck ./examples/stencil            # a durable log in ./ck
	cape run -n 2 --checkpoint ck --restart ./examples/stencil  # after a crash: replay, continue
`

type runFlags struct {
	nodes       int
	monitor     string
	compress    string
	slaveStdout bool
	stats       bool
	verify      bool
	arenaSize   string
	timeout     time.Duration
	maxLost     int
	transfer    string
	// The durable checkpoint log (see checkpointConfig).
	checkpoint    string
	restart       bool
	checkpointMax string
	// checkpointEvery: --checkpoint-every, "" if not given.
	checkpointEvery string
}

func runCmd(args []string, stdout, stderr io.Writer) error {
	var f runFlags
	var cf clusterFlags
	fs := runFlagSet(&f, &cf)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprint(stdout, runHelp+clusterHelp+"Flags:\n"+fs.FlagUsages())
			return nil
		}
		return usagef("run: %v", err)
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return usagef("run: no package given (e.g. cape run -n 4 ./examples/matmul)")
	}
	if fs.Changed("timeout") && f.timeout <= 0 {
		return usagef("run: --timeout %v: want a positive duration, such as 30s (without the flag: 10s)", f.timeout)
	}
	if err := f.check(); err != nil {
		return err
	}
	ck, err := f.checkpointConfig()
	if err != nil {
		return err
	}
	// The master removes the join file when the job ends; a master killed
	// (kill -9) leaves it for the launcher to remove.
	defer nodeenv.RemoveJoin(ck.Checkpoint)
	var remote launch.Remote
	if cf.active() {
		var err error
		if remote, err = cf.remote(); err != nil {
			return err
		}
	} else if name := clusterOnly(fs); name != "" {
		return usagef("run: --%s applies to slaves over ssh (--hostfile or --hosts); local nodes talk over loopback, on ports of their own", name)
	}
	if err := launch.CheckLocalNodes(f.nodes, runtime.NumCPU()); !cf.active() && err != nil {
		return usagef("run: -n %d: %v", f.nodes, err)
	}
	if cores := runtime.NumCPU(); !cf.active() && f.nodes > 4*cores {
		fmt.Fprintf(stderr, "cape: note: %d nodes on this machine's %d cores: each node is a process, and nodes beyond the cores wait for one another (one node per core runs fastest)\n", f.nodes, cores)
	}
	pkg, progArgs, err := goFilesPackage("run", rest[0], rest[1:])
	if err != nil {
		return err
	}
	separated := len(progArgs) > 0 && progArgs[0] == "--"
	if separated {
		progArgs = progArgs[1:]
	}

	ctx, stop := launch.SignalContext()
	defer stop()
	bin, cleanup, err := buildProgram(ctx, pkg, execName(rest[0], pkg), stderr)
	if err != nil && ctx.Err() != nil {
		return launch.Interrupted(ctx, "the build")
	}
	if err != nil {
		return err
	}
	defer cleanup()

	spec := launch.Spec{
		Binary: bin, Args: progArgs, Nodes: f.nodes,
		Stdout: stdout, Stderr: stderr, SlaveStdout: f.slaveStdout, Stdin: programInput(),
		Node: nodeenv.Config{Monitor: f.monitor, Compress: f.compress, Stats: f.stats, Verify: f.verify, Transfer: f.transfer,
			MaxLost: f.maxLost, Checkpoint: ck.Checkpoint, Restart: ck.Restart, CheckpointMax: ck.CheckpointMax, CheckpointEvery: ck.CheckpointEvery},
	}
	if f.timeout > 0 {
		spec.Node.Timeout = f.timeout.String()
	}
	if f.arenaSize != "" {
		spec.Env = append(spec.Env, arena.SizeEnv+"="+f.arenaSize)
	}
	if fault := nodeenv.FaultSpec(); fault != "" {
		// Local nodes inherit it; remote ones get it this way.
		spec.Env = append(spec.Env, nodeenv.Fault+"="+fault)
	}
	if cf.active() {
		err = runCluster(ctx, spec, remote, fs.Changed("nodes"))
	} else if err = launch.Local(ctx, spec); err != nil {
		err = fmt.Errorf("run: %w", err)
	}
	if err != nil && !separated && ctx.Err() == nil {
		if hint := misplacedFlagHint(fs, progArgs); hint != "" {
			var ee *launch.ExitError
			if errors.As(err, &ee) {
				ee.Msg += "\ncape: hint: " + hint
			} else {
				err = fmt.Errorf("%w\ncape: hint: %s", err, hint)
			}
		}
	}
	return err
}

// misplacedFlagHint names, for a failed job, the program's arguments that
// are cape run's own long flags: written after PACKAGE, they reached the
// program, which most likely refused them. It returns "" if there are none.
func misplacedFlagHint(fs *pflag.FlagSet, progArgs []string) string {
	var flags, names []string
	for _, a := range progArgs {
		if a == "--" {
			break
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || len(name) < 2 || fs.Lookup(name) == nil {
			continue
		}
		flags, names = append(flags, a), append(names, "--"+name)
	}
	if len(flags) == 0 {
		return ""
	}
	which := "those flags of cape run go"
	if len(flags) == 1 {
		which = "that flag of cape run goes"
	}
	return fmt.Sprintf("%s after the package went to the program; %s before PACKAGE (cape run %s ... PACKAGE)",
		strings.Join(flags, ", "), which, strings.Join(names, " "))
}

// runFlagSet returns cape run's flags, bound to f and cf.
func runFlagSet(f *runFlags, cf *clusterFlags) *pflag.FlagSet {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fs.SetInterspersed(false)
	fs.SetOutput(io.Discard)
	fs.IntVarP(&f.nodes, "nodes", "n", runtime.NumCPU(), "number of nodes: on this machine, or with --hosts/--hostfile the master plus slaves (default there: one per slot)")
	fs.StringVar(&f.monitor, "monitor", "auto", "dirty-page monitor: auto, uffd, ptrace, compare or complete")
	fs.StringVar(&f.compress, "compress", "auto", "delta compression: none, s2, zstd, or auto (none between nodes of one machine, else s2 where it saves at least 1/8)")
	fs.BoolVar(&f.slaveStdout, "slave-output", false, "also show the slaves' stdout, prefixed with their rank")
	fs.BoolVar(&f.stats, "stats", false, "print per-region statistics (times, pages, bytes, page faults) from every node, on stderr in batches (every 250 ms) so as not to slow the regions measured")
	fs.BoolVar(&f.verify, "verify", false, "re-run each region sequentially on the master and compare")
	fs.StringVar(&f.arenaSize, "arena-size", "", "arena size, e.g. 16G (default 8G of address space; "+arena.SizeEnv+")")
	fs.DurationVar(&f.timeout, "timeout", 0, "declare a silent node dead after this long (default 10s); starting nodes get three times as long to join, at least 30s")
	fs.IntVar(&f.maxLost, "max-lost", -1, "slaves the job may lose, their work re-executed by the survivors (-1: no cap, while the master lives; 0: the first loss stops the job). "+
		"Under distributed homes (the default transfer) surviving a loss means each slave copies what it writes to another node every region "+
		"(on one host, to its own page helper, which serves a lost node's pages); with 0 nothing is copied, and auto uses lazy transfer")
	fs.StringVar(&f.transfer, "transfer", "auto", "how region results reach the slaves: eager (every changed byte, every region), "+
		"lazy (write notices; a slave fetches a changed page from the master when it touches it, and gets the pages it fetched last time pushed; "+
		"needs Linux and the uffd monitor, else eager with a notice), "+
		"homes (the pages a node writes stay on it: others fetch them from it, or get them pushed through the master when they read them last time; "+
		"each slave copies what it wrote to another node (on one host, its own page helper) before the region ends, unless --max-lost 0, so that a loss is survived; "+
		"needs what lazy needs on every node; with --checkpoint, the log holds images taken at //cape:checkpoint points (see --checkpoint-every)), "+
		"or auto (homes where every node can, silently; lazy with --max-lost 0 or --checkpoint, so that the log holds every region; else eager)")
	fs.StringVar(&f.checkpoint, "checkpoint", "", "the master appends each region's merged result to a durable log in this private directory, bounded (see --checkpoint-max) and authenticated by its key DIR/cape.key")
	fs.BoolVar(&f.restart, "restart", false, "with --checkpoint: replay the log (on any number of nodes, with the arguments and input of the run that wrote it), then continue the job")
	fs.StringVar(&f.checkpointMax, "checkpoint-max", "", "with --checkpoint: bound the log's bytes on disk, e.g. 2G (default: 4 times the arena in use, at least 64M); the log is compacted into an image at //cape:checkpoint points, else logging stops at the bound and a restart computes the regions after it")
	fs.StringVar(&f.checkpointEvery, "checkpoint-every", "", "with --checkpoint --transfer homes: the least time between two images of the arena the log keeps (default 1m, and at least 10 times the last image's cost; 0: at every //cape:checkpoint point); under distributed homes the master does not hold the regions' bytes, so the log holds the last image and no region records")
	addClusterFlags(fs, cf)
	return fs
}

// check refuses, as a usage error, a flag value out of its range.
func (f *runFlags) check() error {
	if f.maxLost < -1 {
		return usagef("run: --max-lost %d: want -1 (no cap) or a number of nodes", f.maxLost)
	}
	if f.nodes < 1 {
		return usagef("run: -n %d: need at least one node", f.nodes)
	}
	if err := launch.CheckNodes(f.nodes); err != nil {
		return usagef("run: -n %d: %v", f.nodes, err)
	}
	if f.arenaSize != "" {
		if _, err := arena.ParseSize(f.arenaSize); err != nil {
			return usagef("run: --arena-size: %v", err)
		}
	}
	if !slices.Contains(monitor.Backends(), f.monitor) {
		return usagef("run: --monitor %q: want one of %s", f.monitor, strings.Join(monitor.Backends(), ", "))
	}
	if err := checkTransfer("run", f.transfer); err != nil {
		return err
	}
	if _, err := delta.ParseCompression(f.compress); err != nil {
		return usagef("run: --compress: %v", err)
	}
	return nil
}

// buildProgram returns an executable for pkg: pkg itself when it is an
// executable file, else the result of building it in a temporary directory.
// The executable is named name, as go run names it.
func buildProgram(ctx context.Context, pkg, name string, stderr io.Writer) (bin string, cleanup func(), err error) {
	if st, err := os.Stat(pkg); err == nil && st.Mode().IsRegular() {
		if st.Mode()&0o111 == 0 {
			return "", nil, usagef("run: %s is a file but not executable; give a package directory or a built program", pkg)
		}
		abs, err := filepath.Abs(pkg)
		if err == nil && !hasRuntime(abs) {
			fmt.Fprintf(stderr, "cape: notice: %s holds no CAPE runtime (it was not built by cape build): every node runs the whole program on its own\n", pkg)
		}
		return abs, func() {}, err
	}
	dir, err := gocmd.TempDir("cape-run-")
	if err != nil {
		return "", nil, tempDirError(err)
	}
	cleanup = func() { os.RemoveAll(dir) }
	bin = filepath.Join(dir, name)
	if err := gocmd.Build(ctx, pkg, bin, stderr); err != nil {
		cleanup()
		return "", nil, diagnostics(err, stderr)
	}
	return bin, cleanup, nil
}

// hasRuntime reports whether the executable bin is a Go program that
// links the CAPE runtime (cape build's), from its build information.
func hasRuntime(bin string) bool {
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		return false
	}
	if bi.Main.Path == capesrc.ModulePath {
		return true
	}
	return slices.ContainsFunc(bi.Deps, func(d *debug.Module) bool { return d.Path == capesrc.ModulePath })
}

// tempDirError names the temporary directory, and TMPDIR when it is set,
// in an error creating a directory in it.
func tempDirError(err error) error {
	if tmp, ok := os.LookupEnv("TMPDIR"); ok {
		return fmt.Errorf("run: build directory in TMPDIR=%s: %w", tmp, err)
	}
	return fmt.Errorf("run: build directory in %s: %w", os.TempDir(), err)
}

// programInput is the standard input to give the master, whose runtime
// streams it to every node: cape run's own when it is a file, a pipe or a
// socket, nil (/dev/null) when it is a terminal, which a node in the
// background could not read.
func programInput() *os.File {
	fi, err := os.Stdin.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice != 0 {
		return nil
	}
	return os.Stdin
}

// transferModes are the values of --transfer (cape run, cape bench).
var transferModes = []string{"eager", "lazy", "auto", "homes"}

// checkTransfer refuses a --transfer value of the command cmd that is not
// one of transferModes.
func checkTransfer(cmd, mode string) error {
	if !slices.Contains(transferModes, mode) {
		return usagef("%s: --transfer %q: want eager, lazy, auto or homes", cmd, mode)
	}
	return nil
}
