package translate

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
)

// HasDirectives reports whether any Go file of the package in dir contains a
// //cape: directive. It reads the files but does not parse them.
func HasDirectives(dir string) (bool, error) {
	paths, err := goFiles(dir)
	if err != nil {
		return false, err
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return false, fmt.Errorf("translate: %w", err)
		}
		if bytes.Contains(b, []byte("//cape:")) || bytes.Contains(b, []byte("// cape:")) {
			return true, nil
		}
	}
	return false, nil
}

// Overlay translates the package in dir, writes the translated files into
// the directory tmp and, next to them, overlay.json: a `go build -overlay`
// file mapping each original file to its translation. It returns the path
// of overlay.json. The user's files are never modified. A package without
// directives yields ErrNoDirectives.
func Overlay(dir, tmp string) (overlayJSON string, err error) {
	return (&Config{}).Overlay(dir, tmp)
}

// Overlay is the package-level Overlay with c's settings.
func (c *Config) Overlay(dir, tmp string) (string, error) {
	replace, _, err := c.translateInto(dir, tmp)
	if err != nil {
		return "", err
	}
	return writeOverlay(tmp, replace)
}

// translateInto translates the package in dir into files in tmp and
// returns the overlay's replacements (each original file's path mapped to
// its translation's) and the translation's warnings.
func (c *Config) translateInto(dir, tmp string) (map[string]string, ErrorList, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("translate: %w", err)
	}
	if ok, err := HasDirectives(abs); err != nil {
		return nil, nil, err
	} else if !ok {
		return nil, nil, ErrNoDirectives
	}
	res, err := c.Package(abs)
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
// `go build -overlay`, writing the go command's output to stderr. A package
// without directives is built as it is. The user's files are never
// modified.
func Build(ctx context.Context, dir, out string, stderr io.Writer) error {
	return (&Config{}).Build(ctx, dir, out, stderr)
}

// Build is the package-level Build with c's settings.
func (c *Config) Build(ctx context.Context, dir, out string, stderr io.Writer) error {
	abs, err := packageDir(ctx, dir)
	if err != nil {
		return err
	}
	if out, err = filepath.Abs(out); err != nil {
		return fmt.Errorf("translate: %w", err)
	}
	tmp, err := os.MkdirTemp("", "cape-translate-")
	if err != nil {
		return fmt.Errorf("translate: temporary directory (TMPDIR=%q): %w", os.Getenv("TMPDIR"), err)
	}
	defer os.RemoveAll(tmp)
	replace, warnings, err := c.translateInto(abs, tmp)
	for _, w := range warnings {
		fmt.Fprintln(stderr, w)
	}
	switch {
	case errors.Is(err, ErrNoDirectives):
		replace = map[string]string{}
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
	if len(replace) > 0 {
		overlay, err := writeOverlay(tmp, replace)
		if err != nil {
			return err
		}
		args = append(args, "-overlay", overlay)
	}
	cmd := exec.CommandContext(ctx, "go", append(args, ".")...)
	cmd.Dir = abs
	if len(env.env) > 0 {
		cmd.Env = append(os.Environ(), env.env...)
	}
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("translate: go build %s: %w", dir, err)
	}
	return nil
}

// packageDir returns the absolute directory of dir, resolving a package
// path with go list when dir is not a directory.
func packageDir(ctx context.Context, dir string) (string, error) {
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
