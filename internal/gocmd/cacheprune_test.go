package gocmd

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestPruneRuntimes: runtime directories and extraction stages unused for
// pruneAfter go, recent ones and the one in use stay, and an interrupted
// prune's leftovers go at once.
func TestPruneRuntimes(t *testing.T) {
	base := t.TempDir()
	now := time.Now()
	old := now.Add(-pruneAfter - time.Hour)
	mk := func(name string, used time.Time, complete bool) string {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Join(p, "cape"), 0o700); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(p, "cape", "x.go"), []byte("package cape\n"), 0o600)
		if complete {
			os.WriteFile(filepath.Join(p, ".complete"), nil, 0o600)
			os.Chtimes(filepath.Join(p, ".complete"), used, used)
		}
		os.Chtimes(p, used, used)
		return p
	}
	stale := mk("runtime-aaaa", old, true)
	recent := mk("runtime-bbbb", now.Add(-time.Hour), true)
	// Made long ago but used an hour ago: its .complete says so.
	usedLately := mk("runtime-cccc", now.Add(-time.Hour), true)
	os.Chtimes(usedLately, old, old)
	keep := mk("runtime-dddd", old, true)
	stage := mk("extract-123", old, false)
	freshStage := mk("extract-456", now, false)
	trash := mk("trash-runtime-eeee", now, true)
	other := mk("notes", old, false)

	if got := pruneRuntimes(base, keep, now); got != 2 {
		t.Errorf("removed %d, want 2 (the stale runtime and the stale stage)", got)
	}
	for _, p := range []string{stale, stage, trash} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was kept", filepath.Base(p))
		}
	}
	for _, p := range []string{recent, usedLately, keep, freshStage, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(p), err)
		}
	}
	markUsed(keep)
	if now.Sub(lastUse(keep)) > time.Minute {
		t.Errorf("markUsed did not record the use: %v", lastUse(keep))
	}
}
