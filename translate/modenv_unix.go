//go:build unix

package translate

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// privateCacheDir returns the user's cache directory for cape, creating it
// with mode 0700. It refuses a directory that another user owns or that
// others may write to, since the runtime's source extracted there is built
// into the user's programs.
func privateCacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(base, "cape")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return "", fmt.Errorf("%s is not a directory", dir)
	case !ok || int(st.Uid) != os.Geteuid():
		return "", fmt.Errorf("%s is not owned by this user", dir)
	case fi.Mode().Perm()&0o022 != 0:
		return "", fmt.Errorf("%s may be written by other users", dir)
	}
	return dir, nil
}
