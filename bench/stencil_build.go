package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"github.com/cape-go/cape/internal/gocmd"
)

// stencilBins are the built variants of the stencil benchmark; an empty path
// means not available.
type stencilBins struct {
	dir     string
	plain   string // examples/stencil built by go build: the sequential loop
	cape    string // examples/stencil through the CAPE translator
	gor     string // bench/baselines/stencilgo
	halogo  string // bench/baselines/halogo
	haloc   string // bench/c/stencil_mpi.c
	mpirun  string
	regions string // bench/regions through the translator (cape bench regions)
}

func (b *stencilBins) have(m Mode) bool {
	switch m {
	case Seq:
		return b.plain != ""
	case Goroutines:
		return b.gor != ""
	case Incremental, Complete:
		return b.cape != ""
	case HaloGo:
		return b.halogo != ""
	case HaloC:
		return b.haloc != ""
	}
	return false
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

// buildStencil builds what the modes of cfg need into a new temporary
// directory. A missing Open MPI is a notice: halo-c is skipped.
func buildStencil(ctx context.Context, cfg *StencilConfig) (*stencilBins, error) {
	dir, err := os.MkdirTemp("", "cape-bench-stencil-")
	if err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	b := &stencilBins{dir: dir}
	want := func(ms ...Mode) bool {
		return slices.ContainsFunc(ms, func(m Mode) bool { return slices.Contains(cfg.Modes, m) })
	}
	if want(Seq) {
		if b.plain, err = goBuildPkg(ctx, cfg.Root, dir, "examples/stencil", "stencil-plain"); err != nil {
			return b, err
		}
	}
	if want(Incremental, Complete) {
		var out bytes.Buffer
		b.cape = filepath.Join(dir, "stencil-cape")
		if err := gocmd.Build(ctx, filepath.Join(cfg.Root, "examples", "stencil"), b.cape, &out); err != nil {
			return b, fmt.Errorf("build examples/stencil: %w\n%s", err, out.String())
		}
	}
	if want(Goroutines) {
		if b.gor, err = goBuildPkg(ctx, cfg.Root, dir, "bench/baselines/stencilgo", "stencilgo"); err != nil {
			return b, err
		}
	}
	if want(HaloGo) {
		if b.halogo, err = goBuildPkg(ctx, cfg.Root, dir, "bench/baselines/halogo", "halogo"); err != nil {
			return b, err
		}
	}
	if want(HaloC) {
		src := filepath.Join(cfg.Root, "bench", "c", "stencil_mpi.c")
		b.haloc, b.mpirun = buildMPI(ctx, cfg.Log, HaloC, []string{"-O2", "-ffp-contract=off"}, src, filepath.Join(dir, "stencil_mpi"))
	}
	return b, nil
}
