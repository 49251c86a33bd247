package ckptlog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenDirUnsafeParent checks that a checkpoint directory that is a
// symbolic link, or below a directory others may write, is refused naming
// that component (a link of the caller's before it is followed) (issue 27: a parent's owner could swap the
// checked directory).
func TestOpenDirUnsafeParent(t *testing.T) {
	top := t.TempDir()
	real := filepath.Join(top, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(top, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(top, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, bad string }{
		{link, link},
		{filepath.Join(open, "ck"), open},
	} {
		_, err := OpenDir(c.path)
		if !errors.Is(err, ErrUnsafeDir) || !strings.Contains(err.Error(), c.bad+":") {
			t.Errorf("OpenDir(%s) = %v, want ErrUnsafeDir naming %s", c.path, err, c.bad)
		}
	}
	if _, err := OpenDir(filepath.Join(real, "ck")); err != nil {
		t.Errorf("OpenDir of a private path: %v", err)
	}
	if _, err := OpenDir(filepath.Join(link, "ck2")); err != nil {
		t.Errorf("OpenDir through the caller's own symbolic link: %v", err)
	}
}
