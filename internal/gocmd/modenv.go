package gocmd

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	capesrc "github.com/cape-go/cape"
	"github.com/cape-go/cape/internal/safedir"
)

// runtimeVersion is the version the temporary modfile requires of the
// runtime module; a replace directive points it at the extracted source,
// so the version is never fetched.
const runtimeVersion = "v0.0.0-00010101000000-000000000000"

// A goEnv says how the go command builds a user's package so that the
// package's module provides the CAPE runtime that the generated code
// imports, whatever module the package is in, without touching the user's
// go.mod or go.sum:
//
//   - in this repository's own module, nothing is added;
//   - in any other module, a temporary copy of its go.mod requires the
//     runtime and replaces it by the source this program carries (package
//     capesrc, extracted once per user into a private cache directory), and
//     the copy's go.sum adds the runtime's own go.sum lines, so that nothing
//     is looked up that the runtime needs beyond its dependencies' modules;
//   - in a directory outside any module, an overlaid go.mod makes the
//     directory a module of its own.
//
// The go command reads and writes only the temporary files (-modfile).
type goEnv struct {
	flags   []string          // extra flags for go build
	ldflags string            // the linker flags the user's GOFLAGS set, kept beside the digest's
	overlay map[string]string // extra -overlay entries
	env     []string          // extra environment entries
	notices []string          // what the user should know
}

// modInfo is the part of `go mod edit -json` that newGoEnv reads.
type modInfo struct {
	Module  struct{ Path string }
	Go      string
	Replace []struct{ Old struct{ Path string } }
	Godebug []struct{ Key string }
}

// hasGodebugDefault reports whether the module file sets its GODEBUG
// defaults itself (godebug default=goX.Y).
func (mi *modInfo) hasGodebugDefault() bool {
	for _, g := range mi.Godebug {
		if g.Key == "default" {
			return true
		}
	}
	return false
}

// newGoEnv prepares, in the directory tmp, the temporary module files for
// building the package in dir.
func newGoEnv(ctx context.Context, dir, tmp string) (*goEnv, error) {
	var genv struct{ GOMOD, GOWORK, GOOS, GOARCH, GOFLAGS, GOMODCACHE string }
	if err := goJSON(ctx, dir, &genv, "env", "-json", "GOMOD", "GOWORK", "GOOS", "GOARCH", "GOFLAGS", "GOMODCACHE"); err != nil {
		return nil, err
	}
	e := &goEnv{overlay: map[string]string{}, ldflags: goflagsLdflags(genv.GOFLAGS)}
	if genv.GOMODCACHE == "" {
		// Neither GOMODCACHE, GOPATH nor HOME is set: the go command
		// takes every file for one beneath the module cache and refuses
		// the overlay. The build's own cache serves (what the runtime
		// needs is carried; files written in it stay writable, so that
		// it is removed with the build's directory).
		e.env = append(e.env, "GOMODCACHE="+filepath.Join(tmp, "modcache"), "GOFLAGS="+strings.TrimSpace(genv.GOFLAGS+" -modcacherw"))
	}
	modfile := filepath.Join(tmp, "go.mod")
	var userSum []byte
	replaced := false
	userGo := runtimeGo() // the language version the module declares
	userDebug := false    // the module sets its GODEBUG defaults itself
	if genv.GOMOD == "" || genv.GOMOD == os.DevNull {
		// A directory of .go files outside any module: make it one.
		content := []byte("module capeprogram\n\ngo " + runtimeGo() + "\n")
		root := filepath.Join(tmp, "root.mod")
		if err := writeFiles(map[string][]byte{modfile: content, root: content}); err != nil {
			return nil, err
		}
		e.overlay[filepath.Join(dir, "go.mod")] = root
	} else {
		var mi modInfo
		if err := goJSON(ctx, dir, &mi, "mod", "edit", "-json", genv.GOMOD); err != nil {
			return nil, err
		}
		if mi.Module.Path == capesrc.ModulePath {
			return e, nil // this repository: the runtime is the module itself
		}
		userGo = mi.Go
		userDebug = mi.hasGodebugDefault()
		if userGo == "" {
			userGo = "1.16" // what the go command assumes without a go line
		}
		for _, r := range mi.Replace {
			replaced = replaced || r.Old.Path == capesrc.ModulePath
		}
		content, err := os.ReadFile(genv.GOMOD)
		if err != nil {
			return nil, fmt.Errorf("read the module file: %w", err)
		}
		userSum, err = os.ReadFile(strings.TrimSuffix(genv.GOMOD, ".mod") + ".sum")
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("read the module's checksums: %w", err)
		}
		if err := writeFiles(map[string][]byte{modfile: content}); err != nil {
			return nil, err
		}
	}
	if genv.GOWORK != "" && genv.GOWORK != "off" {
		// -modfile cannot be used with a workspace; the package's own
		// module is used alone.
		e.env = append(e.env, "GOWORK=off")
	}
	rt := runtimeSource{replaced: replaced, self: capesrc.ShipsPlatform(genv.GOOS, genv.GOARCH)}
	rt.keepDebug = genv.GOMOD != "" && genv.GOMOD != os.DevNull && !userDebug
	if err := rt.add(ctx, dir, tmp, modfile, userGo, userSum); err != nil {
		return nil, err
	}
	if rt.notice != "" {
		e.notices = append(e.notices, rt.notice)
	}
	if goVersionLess(userGo, "1.22") {
		places, err := loopvarCaptures(filepath.Dir(genv.GOMOD), 5)
		if err != nil {
			return nil, fmt.Errorf("read the module's files: %w", err)
		}
		if len(places) > 0 {
			return nil, loopvarError(genv.GOMOD, userGo, places)
		}
		e.notices = append(e.notices, fmt.Sprintf("cape: %s declares go %s; the program is built with the language version of go %s, which the runtime needs (since go 1.22 each loop iteration has its own loop variable; the GODEBUG defaults stay go %s's)", genv.GOMOD, userGo, runtimeGo(), majorMinor(userGo)))
	}
	e.flags = []string{"-modfile=" + modfile, "-mod=mod"}
	return e, nil
}

// runtimeSource says where a build's runtime module comes from.
type runtimeSource struct {
	replaced bool   // the user's go.mod replaces the runtime module already
	self     bool   // the target platform's dependencies are carried (capesrc.SelfContained)
	notice   string // what add tells the user, or ""
	// keepDebug: where the language version is raised, the GODEBUG
	// defaults stay those of the module's go line (godebug default=),
	// as go run gives them (math/rand's Seed works before go 1.24).
	keepDebug bool
}

// add makes the temporary modfile require the runtime, replaced by its
// extracted source unless the user's go.mod replaces it already, and
// writes the matching go.sum beside it. A self-contained runtime needs no
// module beyond the standard library, so no checksum of the runtime's is
// added; otherwise the runtime's go.sum lines are, and its dependencies
// come from the module cache or proxy as the go command finds them.
func (rt *runtimeSource) add(ctx context.Context, dir, tmp, modfile, userGo string, userSum []byte) error {
	if len(userSum) > 0 && !bytes.HasSuffix(userSum, []byte("\n")) {
		userSum = append(userSum, '\n')
	}
	if rt.replaced || !rt.self {
		sum, err := capesrc.Files.ReadFile("go.sum")
		if err != nil {
			return fmt.Errorf("read the runtime's checksums: %w", err)
		}
		userSum = append(userSum, sum...)
	}
	sumfile := filepath.Join(tmp, "go.sum")
	if err := writeFiles(map[string][]byte{sumfile: userSum}); err != nil {
		return err
	}
	args := []string{"mod", "edit", "-require=" + capesrc.ModulePath + "@" + runtimeVersion}
	if !rt.replaced {
		src, notice, err := runtimeDir(tmp, rt.self)
		if err != nil {
			return err
		}
		rt.notice = notice
		args = append(args, "-replace="+capesrc.ModulePath+"="+src)
	}
	if v := runtimeGo(); goVersionLess(userGo, v) {
		// The runtime needs this language version; a module declaring an
		// older one could not build it.
		args = append(args, "-go="+v)
		if rt.keepDebug {
			// The runtime's timers need the channels of go 1.23 on.
			args = append(args, "-godebug=default=go"+majorMinor(userGo), "-godebug=asynctimerchan=0")
		}
	}
	return runGo(ctx, dir, nil, append(args, modfile)...)
}

// runtimeGo returns the go line of the runtime's go.mod.
func runtimeGo() string { return capesrc.GoVersion() }

// goVersionLess reports whether the go version a is older than b; an
// empty a (no go line) counts as older.
func goVersionLess(a, b string) bool {
	if a == "" {
		return true
	}
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) || i < len(pb); i++ {
		var x, y int
		if i < len(pa) {
			fmt.Sscan(pa[i], &x)
		}
		if i < len(pb) {
			fmt.Sscan(pb[i], &y)
		}
		if x != y {
			return x < y
		}
	}
	return false
}

// runtimeCache remembers, for this process, the directory each kind of
// runtime source was extracted to (index 1: self-contained).
var runtimeCache struct {
	sync.Mutex
	dir [2]string
}

// selfContainedLayout names how capesrc.SelfContained lays the runtime
// out; it is part of the cache directory's name, so change it when that
// layout changes for the same embedded files.
const selfContainedLayout = "self-contained v1"

// runtimeDir returns a directory holding the runtime module's source,
// self-contained or as this repository has it: a per-user cache
// directory named by the content's hash when one can be had safely, else
// a directory in tmp, with a notice saying why the cache was not used.
// The runtime is assembled (and, self-contained, checked against go.sum)
// only when it must be written.
func runtimeDir(tmp string, self bool) (dir, notice string, err error) {
	runtimeCache.Lock()
	defer runtimeCache.Unlock()
	kind := 0
	if self {
		kind = 1
	}
	if runtimeCache.dir[kind] != "" {
		return runtimeCache.dir[kind], "", nil
	}
	key, err := runtimeKey(self)
	if err != nil {
		return "", "", err
	}
	base, err := privateCacheDir()
	if err == nil {
		final := filepath.Join(base, "runtime-"+key[:24])
		if err = extractOnce(base, final, func() (map[string][]byte, error) { return runtimeFiles(self) }); err == nil {
			markUsed(final)
			pruneRuntimes(base, final, time.Now())
			runtimeCache.dir[kind] = final
			return final, "", nil
		}
	}
	notice = fmt.Sprintf("cape: the runtime's source is not cached (%v); it is extracted for this build only", err)
	files, err := runtimeFiles(self)
	if err != nil {
		return "", "", err
	}
	dir = filepath.Join(tmp, "runtime")
	if err := writeTree(dir, files); err != nil {
		return "", "", err
	}
	return dir, notice, nil
}

// runtimeKey returns, in hex, the SHA-256 of the embedded files the
// runtime is made of (tests left out) and of its layout.
func runtimeKey(self bool) (string, error) {
	h := sha256.New()
	if self {
		fmt.Fprintf(h, "%s\x00", selfContainedLayout)
	}
	err := embeddedRuntime(self, func(p string, b []byte) {
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(b))
		h.Write(b)
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// runtimeFiles returns the runtime's files (tests left out) by their
// slash-separated paths, self-contained (capesrc.SelfContained) or not.
func runtimeFiles(self bool) (map[string][]byte, error) {
	if self {
		return capesrc.SelfContained()
	}
	files := map[string][]byte{}
	if err := embeddedRuntime(false, func(p string, b []byte) { files[p] = b }); err != nil {
		return nil, err
	}
	return files, nil
}

// embeddedRuntime calls fn, in lexical order, for each file of
// capesrc.Files the runtime is made of: tests left out, and the carried
// dependencies (capesrc.DepsDir) only when self. runtimeKey and
// runtimeFiles share it so that the cache key covers exactly what is
// extracted.
func embeddedRuntime(self bool, fn func(p string, b []byte)) error {
	err := fs.WalkDir(capesrc.Files, ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && !self && p == capesrc.DepsDir:
			return fs.SkipDir
		case d.IsDir() || strings.HasSuffix(p, "_test.go"):
			return nil
		}
		b, err := capesrc.Files.ReadFile(p)
		if err != nil {
			return err
		}
		fn(p, b)
		return nil
	})
	if err != nil {
		return fmt.Errorf("read the runtime's source: %w", err)
	}
	return nil
}

// privateCacheDir returns the user's cache directory for cape, creating it
// (and the cache directory above it) with mode 0700. It refuses, with a
// safedir.UnsafeError, a path of which a component could be changed by
// another user, since the runtime's source extracted there is built into
// the user's programs.
func privateCacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(base, "cape")
	if err := safedir.Check(dir, safedir.Options{Create: true, Parents: true}); err != nil {
		return "", err
	}
	return dir, nil
}

// extractOnce writes the files that assemble returns into final unless a
// complete copy is there: it writes into a fresh directory beside it and
// renames that into place, so that concurrent builds never see a partial
// tree.
func extractOnce(base, final string, assemble func() (map[string][]byte, error)) error {
	done := filepath.Join(final, ".complete")
	if _, err := os.Stat(done); err == nil {
		return nil
	}
	files, err := assemble()
	if err != nil {
		return err
	}
	stage, err := os.MkdirTemp(base, "extract-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	if err := writeTree(stage, files); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(stage, ".complete"), nil, 0o600); err != nil {
		return err
	}
	if err := os.Rename(stage, final); err != nil {
		if _, serr := os.Stat(done); serr == nil {
			return nil // another build put it there first
		}
		return err
	}
	return nil
}

// writeTree writes files (slash-separated paths) below dir.
func writeTree(dir string, files map[string][]byte) error {
	for p, b := range files {
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return fmt.Errorf("write the runtime's source: %w", err)
		}
		if err := os.WriteFile(dst, b, 0o600); err != nil {
			return fmt.Errorf("write the runtime's source: %w", err)
		}
	}
	return nil
}

// writeFiles writes each file with mode 0600.
func writeFiles(files map[string][]byte) error {
	for p, b := range files {
		if err := os.WriteFile(p, b, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// goJSON runs the go command in dir and decodes its JSON output into v.
func goJSON(ctx context.Context, dir string, v any, args ...string) error {
	var out bytes.Buffer
	if err := runGoOut(ctx, dir, nil, &out, args...); err != nil {
		return err
	}
	if err := json.Unmarshal(out.Bytes(), v); err != nil {
		return fmt.Errorf("go %s: %w", strings.Join(args[:2], " "), err)
	}
	return nil
}

// runGo runs the go command in dir with env added, for its effects.
func runGo(ctx context.Context, dir string, env []string, args ...string) error {
	return runGoOut(ctx, dir, env, nil, args...)
}

func runGoOut(ctx context.Context, dir string, env []string, stdout io.Writer, args ...string) error {
	cmd := exec.CommandContext(ctx, "go", args...)
	ownGroup(cmd)
	cmd.Dir = dir
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	if err := runInTemp(cmd); err != nil {
		name := "go " + strings.Join(args[:min(2, len(args))], " ")
		if msg := bytes.TrimSpace(stderr.Bytes()); len(msg) > 0 {
			return fmt.Errorf("%s: %w: %s", name, err, msg)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// runInTemp runs cmd, a go command, with a temporary directory of its own
// (GOTMPDIR) that it removes afterwards: an interrupted go command leaves
// its work directory behind.
func runInTemp(cmd *exec.Cmd) error {
	tmp, err := os.MkdirTemp(os.Getenv("GOTMPDIR"), "cape-go-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, "GOTMPDIR="+tmp)
	return cmd.Run()
}

// majorMinor returns the first two components of a Go version (1.22.3:
// 1.22).
func majorMinor(v string) string {
	if i := strings.IndexByte(v, '.'); i >= 0 {
		if j := strings.IndexByte(v[i+1:], '.'); j >= 0 {
			return v[:i+1+j]
		}
	}
	return v
}
