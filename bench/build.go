package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
)

// binaries are matmul's built variants; an empty path means not available.
type binaries struct {
	tmp        string // the temporary directory they were built in; "" when prebuilt
	matmul     string // examples/matmul, translated: seq (-seq), complete, incremental
	goroutines string
	mpigo      string
	omp        string // C with OpenMP
	mpic       string // C with MPI
	mpirun     string
}

// matmulFiles lists matmul's binaries: their names in a build directory
// (Prebuild's layout, and a temporary directory's when Run builds), the
// modes that need them and what they are built from.
var matmulFiles = []struct {
	name  string
	modes []Mode
	src   string // a package of the module, or a C file when cc is set
	cape  bool   // built through the CAPE translator
	cc    string // the C compiler; C binaries are optional
	flags []string
	path  func(*binaries) *string
}{
	{"matmul", []Mode{Seq, Complete, Incremental}, "examples/matmul", true, "", nil, func(b *binaries) *string { return &b.matmul }},
	{"goroutines", []Mode{Goroutines}, "bench/baselines/goroutines", false, "", nil, func(b *binaries) *string { return &b.goroutines }},
	{"mpigo", []Mode{MPIGo, MPIGoGather}, "bench/baselines/mpigo", false, "", nil, func(b *binaries) *string { return &b.mpigo }},
	{"matmul_omp", []Mode{OMPC}, "bench/c/matmul_omp.c", false, "gcc", []string{"-O2", "-fopenmp"}, func(b *binaries) *string { return &b.omp }},
	{"matmul_mpi", []Mode{MPIC}, "bench/c/matmul_mpi.c", false, "mpicc", []string{"-O2"}, func(b *binaries) *string { return &b.mpic }},
}

// buildMatmul builds the binaries that modes need from the module at root
// into dir. static links the OpenMP reference statically, so that it runs
// where gcc's libgomp is not installed. A Go build's failure is an error;
// a C one's (compiler missing, say) is returned in skipped, by mode.
func buildMatmul(ctx context.Context, root, dir string, modes []Mode, static bool) (*binaries, map[Mode]error, error) {
	b, skipped := &binaries{}, map[Mode]error{}
	for _, f := range matmulFiles {
		if !slices.ContainsFunc(f.modes, func(m Mode) bool { return slices.Contains(modes, m) }) {
			continue
		}
		var bin string
		var err error
		switch {
		case f.cape:
			bin, err = capeBuild(ctx, root, dir, filepath.Base(f.src))
		case f.cc == "":
			bin, err = goBuildPkg(ctx, root, dir, f.src, f.name)
		default:
			flags := f.flags
			if static && f.cc == "gcc" {
				flags = append(slices.Clone(flags), "-static")
			}
			if bin, err = cBuild(ctx, f.cc, flags, filepath.Join(root, f.src), filepath.Join(dir, f.name)); err != nil {
				for _, m := range f.modes {
					skipped[m] = err
				}
				continue
			}
		}
		if err != nil {
			return b, skipped, err
		}
		*f.path(b) = bin
	}
	return b, skipped, nil
}

// matmulPrebuilt finds the binaries that modes need in dir (Prebuild's
// layout). A missing Go binary is an error naming it; a missing C one (it
// is built only where its compiler is installed), or mpirun missing for
// mpi-c, is a notice on log that its modes are skipped.
func matmulPrebuilt(dir string, modes []Mode, log io.Writer) (*binaries, error) {
	b := &binaries{}
	for _, f := range matmulFiles {
		var need []Mode
		for _, m := range f.modes {
			if slices.Contains(modes, m) {
				need = append(need, m)
			}
		}
		if len(need) == 0 {
			continue
		}
		if f.cc == "mpicc" {
			b.mpic, b.mpirun = prebuiltMPI(dir, f.name, MPIC, log)
			continue
		}
		bin, err := lookPrebuilt(dir, f.name)
		switch {
		case err != nil && f.cc == "":
			return nil, fmt.Errorf("%w: cape bench build %s writes it", err, dir)
		case err != nil:
			fmt.Fprintf(log, "bench: skipping %s: %v: cape bench build writes it only where %s is installed\n", joinModes(need), err, f.cc)
		}
		*f.path(b) = bin
	}
	return b, nil
}

// ModuleRoot returns the directory holding go.mod, searching upward from dir.
func ModuleRoot(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("module root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", fmt.Errorf("module root: no go.mod above %s (run cape bench inside the cape module, or set --root)", dir)
		}
		d = up
	}
}

// build builds what the modes of cfg need into a new temporary directory,
// or finds them in cfg.Prebuilt (see matmulPrebuilt). Missing C toolchains
// are notices, not errors: those modes are skipped.
func build(ctx context.Context, cfg *Config) (*binaries, error) {
	if cfg.Prebuilt != "" {
		return matmulPrebuilt(cfg.Prebuilt, cfg.Modes, cfg.Log)
	}
	dir, err := os.MkdirTemp("", "cape-bench-")
	if err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	b, skipped, err := buildMatmul(ctx, cfg.Root, dir, cfg.Modes, false)
	b.tmp = dir
	if err != nil {
		return b, err
	}
	for _, m := range AllModes {
		if skipped[m] != nil {
			fmt.Fprintf(cfg.Log, "bench: skipping %s: %v\n", m, skipped[m])
		}
	}
	if b.mpic != "" {
		b.mpic, b.mpirun = withMPIRun(b.mpic, MPIC, cfg.Log)
	}
	return b, nil
}

// errNoToolchain is returned by cBuild when the compiler is not installed.
var errNoToolchain = errors.New("compiler not installed (run .ci/bench-setup.sh, or apt-get install gcc libopenmpi-dev openmpi-bin)")

// buildMPI compiles the MPI C reference src into out with mpicc and finds
// mpirun. Either one missing is a notice on log that mode is skipped, and
// then both returned paths are empty.
func buildMPI(ctx context.Context, log io.Writer, mode Mode, flags []string, src, out string) (bin, mpirun string) {
	bin, err := cBuild(ctx, "mpicc", flags, src, out)
	if err != nil {
		fmt.Fprintf(log, "bench: skipping %s: %v\n", mode, err)
		return "", ""
	}
	return withMPIRun(bin, mode, log)
}

// withMPIRun returns the MPI binary bin of mode and mpirun from $PATH;
// without mpirun, a notice on log that mode is skipped, and two empty
// paths.
func withMPIRun(bin string, mode Mode, log io.Writer) (string, string) {
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		fmt.Fprintf(log, "bench: skipping %s: mpirun not found\n", mode)
		return "", ""
	}
	return bin, mpirun
}

func cBuild(ctx context.Context, cc string, flags []string, src, out string) (string, error) {
	path, err := exec.LookPath(cc)
	if err != nil {
		return "", fmt.Errorf("%s: %w", cc, errNoToolchain)
	}
	args := append(append([]string{}, flags...), "-o", out, src)
	if o, err := exec.CommandContext(ctx, path, args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s %s: %w\n%s", cc, filepath.Base(src), err, o)
	}
	return out, nil
}
