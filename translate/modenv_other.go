//go:build !unix

package translate

import (
	"os"
	"path/filepath"
)

// privateCacheDir returns the user's cache directory for cape, creating it
// if need be (the per-user profile directory is private on these systems).
func privateCacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(base, "cape")
	return dir, os.MkdirAll(dir, 0o700)
}
