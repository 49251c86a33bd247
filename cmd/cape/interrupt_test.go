//go:build linux

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptDuringBuild: Ctrl-C (SIGINT) while cape run builds the
// program ended cape with status 1 ("translate: go list: signal: killed"),
// while the compilers ran on, orphaned, and the go command's work
// directory stayed in TMPDIR. Now cape exits with 130, saying so, and
// nothing of the build is left: no process, no directory.
func TestInterruptDuringBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cape and starts a build from an empty cache")
	}
	t.Parallel()
	capeBin := buildCape(t, t.TempDir())
	tmp, cache := t.TempDir(), t.TempDir() // an empty cache: a build of minutes
	cmd := exec.Command(capeBin, "run", "-n", "2", "../../examples/stencil")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "GOCACHE="+cache)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("cape run went on for 30 s after SIGINT during the build\n%s", stderr.String())
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 || !strings.Contains(stderr.String(), "during the build") {
		t.Errorf("SIGINT during the build: %v, want exit status 130 saying so\n%s", err, stderr.String())
	}
	// The go command and its compilers stop with it.
	deadline := time.Now().Add(10 * time.Second)
	for left := buildProcesses(cache); len(left) > 0; left = buildProcesses(cache) {
		if time.Now().After(deadline) {
			t.Fatalf("build processes left running: %v", left)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) > 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}
}

// buildProcesses returns the command lines of the processes whose
// environment names cache as GOCACHE.
func buildProcesses(cache string) []string {
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil || !bytes.Contains(env, []byte("GOCACHE="+cache+"\x00")) {
			continue
		}
		line, _ := os.ReadFile(filepath.Join(d, "cmdline"))
		out = append(out, strings.ReplaceAll(string(line), "\x00", " "))
	}
	return out
}
