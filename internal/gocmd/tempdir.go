package gocmd

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ownerFile, in a temporary directory of cape's, holds the PID of the
// process that made it.
const ownerFile = ".cape-pid"

// tempPrefixes are the temporary directories cape makes for a build.
var tempPrefixes = []string{"cape-run-", "cape-translate-"}

// TempDir makes a temporary directory named prefix* (one of tempPrefixes)
// recording its maker's PID, after removing those of earlier cape
// processes of this user that were killed before they could (kill -9
// during a build or a run): a directory whose maker is gone and that is
// older than a minute.
func TempDir(prefix string) (string, error) {
	removeStaleTemps(os.TempDir(), time.Now())
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// removeStaleTemps removes from tmp the directories of tempPrefixes that
// TempDir made for processes now gone, as TempDir says, and returns how
// many it removed.
func removeStaleTemps(tmp string, now time.Time) int {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return 0
	}
	removed := 0
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || !slices.ContainsFunc(tempPrefixes, func(p string) bool { return strings.HasPrefix(name, p) }) {
			continue
		}
		dir := filepath.Join(tmp, name)
		fi, err := os.Lstat(dir)
		if err != nil || !ownedByMe(fi) || now.Sub(fi.ModTime()) < time.Minute {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue // not one of TempDir's: leave it
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 || processAlive(pid) {
			continue
		}
		if os.RemoveAll(dir) == nil {
			removed++
		}
	}
	return removed
}
