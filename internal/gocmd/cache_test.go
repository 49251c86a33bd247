package gocmd

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cape-go/cape/internal/safedir"
	"github.com/cape-go/cape/internal/testenv"
)

// TestCacheDirUnsafe checks that the runtime's source cache is not used
// below a directory another user could change (issue 27: that user could
// swap the checked directory for their own source after the check): one
// that uid 65534 owns with mode 0777, one that others may write; that the
// caller's own symbolic link is followed; and that the normal case gives a
// 0700 directory.
func TestCacheDirUnsafe(t *testing.T) {
	if runtime.GOOS != "linux" {
		testenv.Skip(t, "the walk that checks every component is Linux's")
	}
	top := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(top, "mine"))
	dir, err := privateCacheDir()
	if err != nil {
		t.Fatalf("privateCacheDir: %v", err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the cache %s has mode %v (%v), want 0700", dir, fi.Mode().Perm(), err)
	}
	// A symbolic link of the caller's (a cluster's /home) is followed.
	if err := os.Symlink(filepath.Join(top, "mine"), filepath.Join(top, "link")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", filepath.Join(top, "link"))
	if _, err := privateCacheDir(); err != nil {
		t.Errorf("a cache through the caller's own symbolic link: %v", err)
	}
	open := filepath.Join(top, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ cache, bad, why string }{
		{filepath.Join(open, "cache"), open, "not sticky"},
	}
	if os.Geteuid() == 0 {
		theirs := filepath.Join(top, "theirs")
		if err := os.Mkdir(theirs, 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(theirs, 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(theirs, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct{ cache, bad, why string }{filepath.Join(theirs, "cache"), theirs, "owned by uid 65534"})
	} else {
		defer testenv.Skip(t, "giving a directory to uid 65534 needs root")
	}
	for _, c := range cases {
		t.Setenv("XDG_CACHE_HOME", c.cache)
		_, err := privateCacheDir()
		var ue *safedir.UnsafeError
		if !errors.As(err, &ue) || ue.Path != c.bad || !strings.Contains(err.Error(), c.why) {
			t.Errorf("with XDG_CACHE_HOME=%s: privateCacheDir() = %v, want it refused naming %s (%s)", c.cache, err, c.bad, c.why)
		}
		if _, err := os.Lstat(c.cache); c.bad != c.cache && err == nil {
			t.Errorf("%s was created", c.cache)
		}
	}
	t.Setenv("XDG_CACHE_HOME", filepath.Join(open, "cache"))
	runtimeCache.Lock()
	saved := runtimeCache.dir
	runtimeCache.dir = [2]string{}
	runtimeCache.Unlock()
	defer func() { runtimeCache.Lock(); runtimeCache.dir = saved; runtimeCache.Unlock() }()
	tmp := t.TempDir()
	got, notice, err := runtimeDir(tmp, true)
	if err != nil {
		t.Fatalf("runtimeDir: %v", err)
	}
	if got != filepath.Join(tmp, "runtime") || !strings.Contains(notice, "not sticky") {
		t.Errorf("runtimeDir with an unsafe cache = %q, notice %q; want the build's own directory and a notice saying why", got, notice)
	}
	if _, err := os.Stat(filepath.Join(got, "internal", "dep", "golang.org", "x", "sys", "unix")); err != nil {
		t.Errorf("the extracted runtime carries no x/sys/unix: %v", err)
	}
}
