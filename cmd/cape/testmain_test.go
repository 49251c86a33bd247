package main

import (
	"context"
	"io"
	"os"
	"sync"
	"testing"
)

// builds holds the programs the tests of this package built, one per
// package directory, shared by every test that runs it (a build costs a
// translation and a link: seconds each on a loaded 2-core machine). It owns
// their directories until TestMain removes them.
var builds struct {
	mu sync.Mutex            // protects the fields below
	m  map[string]*builtOnce // package directory → its build
}

// builtOnce is one package's build, made by the first test that asks.
type builtOnce struct {
	once    sync.Once
	bin     string
	cleanup func()
	err     error
}

// sharedBuild builds the package dir once for the whole test binary (the
// first caller builds, the others wait) and returns the program, named as
// `cape run dir` names it. Tests must not modify it. A test of the build
// itself (cape run from source) runs `cape run dir` instead.
func sharedBuild(t testing.TB, dir string) string {
	t.Helper()
	builds.mu.Lock()
	if builds.m == nil {
		builds.m = map[string]*builtOnce{}
	}
	b := builds.m[dir]
	if b == nil {
		b = &builtOnce{}
		builds.m[dir] = b
	}
	builds.mu.Unlock()
	b.once.Do(func() {
		b.bin, b.cleanup, b.err = buildProgram(context.Background(), dir, execName(dir, dir), io.Discard)
	})
	if b.err != nil {
		t.Fatalf("build %s: %v", dir, b.err)
	}
	return b.bin
}

// TestMain runs the tests, then removes the programs sharedBuild built.
func TestMain(m *testing.M) {
	code := m.Run()
	builds.mu.Lock()
	for _, b := range builds.m {
		if b.cleanup != nil {
			b.cleanup()
		}
	}
	builds.mu.Unlock()
	os.Exit(code)
}
