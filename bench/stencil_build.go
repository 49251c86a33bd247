package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"github.com/cape-go/cape/internal/gocmd"
)

// stencilBins are the built variants of a workload; an empty path means
// not available.
type stencilBins struct {
	tmp      string // the temporary directory they were built in; "" when prebuilt
	plain    string // the example built by go build: the sequential loop
	cape     string // the example through the CAPE translator
	gor      string // bench/baselines/stencilgo
	baseline string // bench/baselines/halogo or mpwork
	haloc    string // bench/c/stencil_mpi.c
	mpirun   string
	rsswrap  string // bench/rsswrap: peak RSS of every process
}

func (b *stencilBins) have(m Mode) bool {
	switch m {
	case Seq:
		return b.plain != ""
	case Goroutines:
		return b.gor != ""
	case Incremental, Complete:
		return b.cape != ""
	case HaloGo, MPGo:
		return b.baseline != ""
	case HaloC:
		return b.haloc != ""
	}
	return false
}

// rss is the prefix that runs a program under rsswrap, if there is one.
func (b *stencilBins) rss() []string {
	if b.rsswrap == "" {
		return nil
	}
	return []string{b.rsswrap}
}

// goBuildPkg builds the package ./pkg of the module at root into dir/name.
func goBuildPkg(ctx context.Context, root, dir, pkg, name string) (string, error) {
	bin := filepath.Join(dir, name)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./"+pkg)
	cmd.Dir = root
	if o, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build %s: %w\n%s", pkg, err, o)
	}
	return bin, nil
}

// binName is the name in a build directory (Prebuild's layout) of the
// binary of w built as what (buildOne's names): for a workload W, W is the
// example through the CAPE translator and W.seq the example by plain go
// build; the baselines and rsswrap are named after their package. It is ""
// for an unknown what.
func binName(w *Workload, what string) string {
	switch what {
	case "cape":
		return w.Example
	case "seq":
		return w.Example + ".seq"
	case "goroutines":
		return "stencilgo"
	case "baseline":
		if w.Baseline == HaloGo {
			return "halogo"
		}
		return "mpwork"
	case "rsswrap":
		return "rsswrap"
	}
	return ""
}

// capeBuild builds examples/example of the module at root through the
// CAPE translator into dir/example.
func capeBuild(ctx context.Context, root, dir, example string) (string, error) {
	var out bytes.Buffer
	bin := filepath.Join(dir, example)
	if err := gocmd.Build(ctx, filepath.Join(root, "examples", example), bin, &out); err != nil {
		return "", fmt.Errorf("build examples/%s: %w\n%s", example, err, out.String())
	}
	return bin, nil
}

// buildOne builds one binary of w's variants into dir under its Prebuild
// name: what is "cape", "seq", "goroutines", "baseline" or "rsswrap".
func buildOne(ctx context.Context, root, dir string, w *Workload, what string) (string, error) {
	name := binName(w, what)
	switch what {
	case "cape":
		return capeBuild(ctx, root, dir, w.Example)
	case "seq":
		return goBuildPkg(ctx, root, dir, "examples/"+w.Example, name)
	case "goroutines", "baseline":
		return goBuildPkg(ctx, root, dir, "bench/baselines/"+name, name)
	case "rsswrap":
		return goBuildPkg(ctx, root, dir, "bench/rsswrap", name)
	}
	return "", fmt.Errorf("nothing called %q to build", what)
}

// wanted lists what w's modes need built (buildOne's names), rsswrap
// first.
func wanted(w *Workload, modes []Mode) []string {
	want := func(ms ...Mode) bool {
		return slices.ContainsFunc(ms, func(m Mode) bool { return slices.Contains(modes, m) })
	}
	out := []string{"rsswrap"}
	for _, x := range []struct {
		what  string
		modes []Mode
	}{{"seq", []Mode{Seq}}, {"cape", []Mode{Incremental, Complete}}, {"goroutines", []Mode{Goroutines}}, {"baseline", []Mode{HaloGo, MPGo}}} {
		if want(x.modes...) {
			out = append(out, x.what)
		}
	}
	return out
}

// set records the binary bin, built as what, in b.
func (b *stencilBins) set(what, bin string) {
	switch what {
	case "cape":
		b.cape = bin
	case "seq":
		b.plain = bin
	case "goroutines":
		b.gor = bin
	case "baseline":
		b.baseline = bin
	case "rsswrap":
		b.rsswrap = bin
	}
}

// stencilBinaries builds what the modes of cfg need into a new temporary
// directory, or finds them in cfg.Prebuilt. A missing Open MPI is a
// notice: halo-c is skipped; so is a missing prebuilt binary: its modes
// are.
func stencilBinaries(ctx context.Context, cfg *StencilConfig) (*stencilBins, error) {
	if cfg.Prebuilt != "" {
		return prebuilt(cfg.Prebuilt, cfg.Workload, cfg.Modes, cfg.Log), nil
	}
	dir, err := os.MkdirTemp("", "cape-bench-"+cfg.Workload.Name+"-")
	if err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	b := &stencilBins{tmp: dir}
	for _, what := range wanted(cfg.Workload, cfg.Modes) {
		bin, err := buildOne(ctx, cfg.Root, dir, cfg.Workload, what)
		if err != nil {
			return b, err
		}
		b.set(what, bin)
	}
	if slices.Contains(cfg.Modes, HaloC) {
		src := filepath.Join(cfg.Root, "bench", "c", "stencil_mpi.c")
		b.haloc, b.mpirun = buildMPI(ctx, cfg.Log, HaloC, []string{"-O2", "-ffp-contract=off"}, src, filepath.Join(dir, "stencil_mpi"))
	}
	return b, nil
}

// prebuilt finds w's binaries in dir (Prebuild's layout), with a notice
// on log for each that is missing. halo-c uses dir/stencil_mpi and mpirun
// from $PATH.
func prebuilt(dir string, w *Workload, modes []Mode, log io.Writer) *stencilBins {
	b := &stencilBins{}
	for _, what := range wanted(w, modes) {
		bin, err := lookPrebuilt(dir, binName(w, what))
		if err != nil {
			fmt.Fprintf(log, "bench: %s: %v: skipping what needs it\n", w.Name, err)
			continue
		}
		b.set(what, bin)
	}
	if slices.Contains(modes, HaloC) {
		b.haloc, b.mpirun = prebuiltMPI(dir, "stencil_mpi", HaloC, log)
	}
	return b
}

// lookPrebuilt returns the path of the binary name in the build directory
// dir, or an error naming the missing file.
func lookPrebuilt(dir, name string) (string, error) {
	bin := filepath.Join(dir, name)
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("no prebuilt %s (%w)", name, err)
	}
	return bin, nil
}

// prebuiltMPI finds the MPI reference name of mode in the build directory
// dir and mpirun on $PATH. Either one missing is a notice on log that mode
// is skipped (Prebuild makes name only where mpicc is installed; Open MPI
// must be installed where it runs), and then both returned paths are
// empty.
func prebuiltMPI(dir, name string, mode Mode, log io.Writer) (bin, mpirun string) {
	bin, err := lookPrebuilt(dir, name)
	if err != nil {
		err = fmt.Errorf("%w: cape bench build writes it only where mpicc is installed", err)
	} else {
		if mpirun, err = exec.LookPath("mpirun"); err != nil {
			bin, err = "", errors.New("no mpirun on $PATH (Open MPI is not installed here)")
		}
	}
	if err != nil {
		fmt.Fprintf(log, "bench: skipping %s: %v\n", mode, err)
	}
	return bin, mpirun
}

// Prebuild builds every binary of matmul, of the workloads and of regions
// into dir,
// in the layout that Config.Prebuilt reads, from the cape module at root:
// run it with CGO_ENABLED=0 in the environment for static binaries that
// run on a machine without a Go toolchain. An empty root means the module
// holding the working directory, as in Config.Root. The C references are
// built when their compiler is installed (a notice on log otherwise):
// omp-c statically, mpi-c and halo-c with mpicc, which need Open MPI where
// they run.
func Prebuild(ctx context.Context, root, dir string, log io.Writer) error {
	if root == "" {
		var err error
		if root, err = ModuleRoot("."); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("prebuild: %w", err)
	}
	done := map[string]bool{} // by binName: workloads share binaries
	for _, w := range Workloads {
		for _, what := range wanted(w, w.Modes) {
			name := binName(w, what)
			if done[name] {
				continue
			}
			done[name] = true
			if _, err := buildOne(ctx, root, dir, w, what); err != nil {
				return fmt.Errorf("prebuild: %w", err)
			}
		}
	}
	var out bytes.Buffer
	if err := gocmd.Build(ctx, filepath.Join(root, "bench", "regions"), filepath.Join(dir, "regions"), &out); err != nil {
		return fmt.Errorf("prebuild: build bench/regions: %w\n%s", err, out.String())
	}
	src := filepath.Join(root, "bench", "c", "stencil_mpi.c")
	if _, err := cBuild(ctx, "mpicc", []string{"-O2", "-ffp-contract=off"}, src, filepath.Join(dir, "stencil_mpi")); err != nil {
		fmt.Fprintf(log, "bench: prebuild: no halo-c: %v\n", err)
	}
	_, skipped, err := buildMatmul(ctx, root, dir, AllModes, true)
	if err != nil {
		return fmt.Errorf("prebuild: %w", err)
	}
	for _, m := range AllModes {
		if skipped[m] != nil {
			fmt.Fprintf(log, "bench: prebuild: no %s: %v\n", m, skipped[m])
		}
	}
	return nil
}
