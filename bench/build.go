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

	"github.com/cape-go/cape/internal/gocmd"
)

// binaries are the built variants; an empty path means not available.
type binaries struct {
	dir        string
	matmul     string // examples/matmul, translated: seq (-seq), complete, incremental
	goroutines string
	mpigo      string
	omp        string // C with OpenMP
	mpic       string // C with MPI
	mpirun     string
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

// build builds what the modes of cfg need into a new temporary directory.
// Missing C toolchains are notices, not errors: those modes are skipped.
func build(ctx context.Context, cfg *Config) (*binaries, error) {
	dir, err := os.MkdirTemp("", "cape-bench-")
	if err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	b := &binaries{dir: dir}
	want := map[Mode]bool{}
	for _, m := range cfg.Modes {
		want[m] = true
	}
	var out bytes.Buffer
	if want[Seq] || want[Complete] || want[Incremental] {
		b.matmul = filepath.Join(dir, "matmul")
		if err := gocmd.Build(ctx, filepath.Join(cfg.Root, "examples", "matmul"), b.matmul, &out); err != nil {
			return b, fmt.Errorf("build examples/matmul: %w\n%s", err, out.String())
		}
	}
	goBuild := func(pkg, name string) (string, error) {
		bin := filepath.Join(dir, name)
		cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./"+pkg)
		cmd.Dir = cfg.Root
		if o, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("build %s: %w\n%s", pkg, err, o)
		}
		return bin, nil
	}
	if want[Goroutines] {
		if b.goroutines, err = goBuild("bench/baselines/goroutines", "goroutines"); err != nil {
			return b, err
		}
	}
	if want[MPIGo] || want[MPIGoGather] {
		if b.mpigo, err = goBuild("bench/baselines/mpigo", "mpigo"); err != nil {
			return b, err
		}
	}
	src := filepath.Join(cfg.Root, "bench", "c")
	if want[OMPC] {
		b.omp, err = cBuild(ctx, "gcc", []string{"-O2", "-fopenmp"}, filepath.Join(src, "matmul_omp.c"), filepath.Join(dir, "matmul_omp"))
		if err != nil {
			fmt.Fprintf(cfg.Log, "bench: skipping omp-c: %v\n", err)
		}
	}
	if want[MPIC] {
		b.mpic, b.mpirun = buildMPI(ctx, cfg.Log, MPIC, []string{"-O2"}, filepath.Join(src, "matmul_mpi.c"), filepath.Join(dir, "matmul_mpi"))
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
	if err == nil {
		if mpirun, err = exec.LookPath("mpirun"); err != nil {
			bin, err = "", errors.New("mpirun not found")
		}
	}
	if err != nil {
		fmt.Fprintf(log, "bench: skipping %s: %v\n", mode, err)
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
