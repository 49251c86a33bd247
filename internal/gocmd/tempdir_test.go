//go:build unix

package gocmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestRemoveStaleTemps: a build directory whose maker is gone and that is
// over a minute old is removed; one whose maker lives, a recent one, one
// without an owner file and another prefix's stay.
func TestRemoveStaleTemps(t *testing.T) {
	tmp := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * time.Minute)
	mk := func(name string, pid int, mtime time.Time) string {
		d := filepath.Join(tmp, name)
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, "prog"), []byte("x"), 0o700)
		if pid != 0 {
			os.WriteFile(filepath.Join(d, ownerFile), []byte(strconv.Itoa(pid)), 0o600)
		}
		os.Chtimes(d, mtime, mtime)
		return d
	}
	stale := mk("cape-run-1", dead.Process.Pid, old)
	staleTr := mk("cape-translate-2", dead.Process.Pid, old)
	live := mk("cape-run-3", os.Getpid(), old)
	recent := mk("cape-run-4", dead.Process.Pid, time.Now())
	foreign := mk("cape-run-5", 0, old)
	other := mk("go-build6", dead.Process.Pid, old)
	if got := removeStaleTemps(tmp, time.Now()); got != 2 {
		t.Errorf("removed %d, want 2", got)
	}
	for _, d := range []string{stale, staleTr} {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("%s was kept", filepath.Base(d))
		}
	}
	for _, d := range []string{live, recent, foreign, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed", filepath.Base(d))
		}
	}
	d, err := TempDir("cape-run-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(d)
	if b, err := os.ReadFile(filepath.Join(d, ownerFile)); err != nil || string(b) != strconv.Itoa(os.Getpid()) {
		t.Errorf("TempDir's owner file: %q, %v", b, err)
	}
}
