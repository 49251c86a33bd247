package gocmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cape-go/cape/translate"
)

// Errors keep the "translate:" prefix the user has always seen from cape
// build and cape run: this package runs the go command for that step.

// config returns the translation settings of a build run under ctx: an
// ExportImporter for the package's imports.
func config(ctx context.Context) *translate.Config {
	return &translate.Config{NewImporter: newImporter(ctx)}
}

// Translate translates the package in dir, its imports resolved by
// ExportImporter. Diagnostics come back as a translate.ErrorList.
func Translate(ctx context.Context, dir string) (*translate.Result, error) {
	return config(ctx).Package(dir)
}

// Overlay translates the package in dir, writes the translated files into
// the directory tmp and, next to them, overlay.json: a `go build -overlay`
// file mapping each original file to its translation. It returns the path
// of overlay.json. The user's files are never modified. A package without
// directives yields translate.ErrNoDirectives.
func Overlay(ctx context.Context, dir, tmp string) (overlayJSON string, err error) {
	replace, _, err := translateInto(ctx, dir, tmp)
	if err != nil {
		return "", err
	}
	return writeOverlay(tmp, replace)
}

// translateInto translates the package in dir into files in tmp and
// returns the overlay's replacements (each original file's path mapped to
// its translation's) and the translation's warnings.
func translateInto(ctx context.Context, dir, tmp string) (map[string]string, translate.ErrorList, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("translate: %w", err)
	}
	if ok, err := translate.HasDirectives(abs); err != nil {
		return nil, nil, err
	} else if !ok {
		return nil, nil, translate.ErrNoDirectives
	}
	res, err := config(ctx).Package(abs)
	if err != nil {
		return nil, nil, err
	}
	replace := map[string]string{}
	for orig, src := range res.Files {
		dst := filepath.Join(tmp, filepath.Base(orig))
		if err := os.WriteFile(dst, src, 0o644); err != nil {
			return nil, nil, fmt.Errorf("translate: %w", err)
		}
		replace[orig] = dst
	}
	return replace, res.Warnings, nil
}

// writeOverlay writes tmp/overlay.json, the -overlay file of the
// replacements, and returns its path.
func writeOverlay(tmp string, replace map[string]string) (string, error) {
	b, err := json.MarshalIndent(struct{ Replace map[string]string }{replace}, "", "\t")
	if err != nil {
		return "", fmt.Errorf("translate: %w", err)
	}
	path := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("translate: %w", err)
	}
	return path, nil
}

// Build translates the package in dir (a directory, or a package path that
// `go list` resolves) and builds it into the executable out with
// `go build -overlay`, writing the translation's warnings and the go
// command's output to stderr. A package without directives is built as it
// is. The user's files are never modified.
func Build(ctx context.Context, dir, out string, stderr io.Writer) error {
	abs, err := PackageDir(ctx, dir)
	if err != nil {
		return err
	}
	if out, err = filepath.Abs(out); err != nil {
		return fmt.Errorf("translate: %w", err)
	}
	tmp, err := TempDir("cape-translate-")
	if err != nil {
		return fmt.Errorf("translate: temporary directory (TMPDIR=%q): %w", os.Getenv("TMPDIR"), err)
	}
	defer os.RemoveAll(tmp)
	replace, warnings, err := translateInto(ctx, abs, tmp)
	for _, w := range warnings {
		fmt.Fprintln(stderr, w)
	}
	for _, n := range directivesElsewhere(ctx, abs) {
		fmt.Fprintln(stderr, n)
	}
	switch {
	case errors.Is(err, translate.ErrNoDirectives):
		replace = map[string]string{}
		fmt.Fprintf(stderr, "cape: notice: %s has no //cape: directives: it is built as it is, and every node runs the whole program\n", dir)
	case err != nil:
		return err
	}
	mods, err := os.MkdirTemp(tmp, "mod-")
	if err != nil {
		return fmt.Errorf("translate: %w", err)
	}
	env, err := newGoEnv(ctx, abs, mods)
	if err != nil {
		return fmt.Errorf("translate: prepare the module for %s: %w", dir, err)
	}
	for _, n := range env.notices {
		fmt.Fprintln(stderr, n)
	}
	for orig, dst := range env.overlay {
		replace[orig] = dst
	}
	args := append([]string{"build", "-o", out}, env.flags...)
	if digest, err := programDigest(abs, replace); err == nil {
		// A -ldflags on the command line replaces GOFLAGS's: the user's
		// linker flags are kept by giving them again, before the digest.
		args = append(args, "-ldflags="+strings.TrimSpace(env.ldflags+" -X="+digestVar+"="+digest))
	}
	if len(replace) > 0 {
		overlay, err := writeOverlay(tmp, replace)
		if err != nil {
			return err
		}
		args = append(args, "-overlay", overlay)
	}
	cmd := exec.CommandContext(ctx, "go", append(args, ".")...)
	ownGroup(cmd)
	cmd.Dir = abs
	if len(env.env) > 0 {
		cmd.Env = append(os.Environ(), env.env...)
	}
	// The go command's output and the note below may be written at once.
	lw := &lockedWriter{w: stderr}
	cmd.Stdout, cmd.Stderr = lw, lw
	slow := time.AfterFunc(slowBuild, func() {
		fmt.Fprintf(lw, "cape: still building %s: the first build with a new cape or Go compiles the CAPE runtime and its dependencies (about a minute); later builds take seconds\n", dir)
	})
	defer slow.Stop()
	if err := runInTemp(cmd); err != nil {
		return fmt.Errorf("translate: go build %s: %w", dir, err)
	}
	return nil
}

// slowBuild is how long a build runs before Build says why it is slow.
const slowBuild = 8 * time.Second

// lockedWriter serialises the writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// PackageDir returns the absolute directory of dir, resolving a package
// path with go list when dir is not a directory.
func PackageDir(ctx context.Context, dir string) (string, error) {
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", fmt.Errorf("translate: %w", err)
		}
		return abs, nil
	}
	var out bytes.Buffer
	if err := runGoOut(ctx, "", nil, &out, "list", "-f", "{{.Dir}}", dir); err != nil {
		return "", fmt.Errorf("translate: %s is not a directory, and go list cannot find it: %w", dir, err)
	}
	return strings.TrimSpace(out.String()), nil
}
