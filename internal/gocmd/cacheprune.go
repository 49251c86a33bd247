package gocmd

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// pruneAfter is how long a runtime directory in the per-user cache may go
// unused before another cape's build removes it: each version of cape
// extracts its own (runtime-<hash>), and without this they pile up.
const pruneAfter = 14 * 24 * time.Hour

// markUsed records a build's use of the runtime directory dir, as the
// time of its .complete file, which pruneRuntimes reads.
func markUsed(dir string) {
	now := time.Now()
	_ = os.Chtimes(filepath.Join(dir, ".complete"), now, now)
}

// pruneRuntimes removes from the cache directory base the runtime
// directories other than keep that no build has used for pruneAfter, the
// stages of extractions as old (a build killed while extracting), and
// what an earlier prune was stopped while removing. A directory is
// renamed away before it is removed, so that a build never sees half of
// one. It returns how many it removed; it never fails a build.
func pruneRuntimes(base, keep string, now time.Time) int {
	entries, err := os.ReadDir(base)
	if err != nil {
		return 0
	}
	removed := 0
	for _, e := range entries {
		name := e.Name()
		p := filepath.Join(base, name)
		if !e.IsDir() || p == keep {
			continue
		}
		switch {
		case strings.HasPrefix(name, "trash-"):
			os.RemoveAll(p)
			continue
		case strings.HasPrefix(name, "runtime-"), strings.HasPrefix(name, "extract-"):
		default:
			continue
		}
		if now.Sub(lastUse(p)) < pruneAfter {
			continue
		}
		trash := filepath.Join(base, "trash-"+name)
		if os.Rename(p, trash) == nil && os.RemoveAll(trash) == nil {
			removed++
		}
	}
	return removed
}

// lastUse is when a build last used the cache entry dir: its .complete's
// time (markUsed), else the directory's own.
func lastUse(dir string) time.Time {
	if fi, err := os.Stat(filepath.Join(dir, ".complete")); err == nil {
		return fi.ModTime()
	}
	if fi, err := os.Stat(dir); err == nil {
		return fi.ModTime()
	}
	return time.Time{}
}
