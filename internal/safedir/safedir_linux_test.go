package safedir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cape-go/cape/internal/testenv"
)

// nobody is the uid of another user for the tests that need one.
const nobody = 65534

// TestOpenCreates checks the normal case: missing components are created
// 0700 and the directory is opened.
func TestOpenCreates(t *testing.T) {
	want := filepath.Join(t.TempDir(), "a", "b")
	d, err := Open(want, Options{Create: true, Parents: true})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer d.Close()
	if d.Path() != want {
		t.Errorf("Path() = %q, want %q", d.Path(), want)
	}
	for _, p := range []string{want, filepath.Dir(want)} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("%s has mode %v, want 0700", p, fi.Mode().Perm())
		}
	}
	fi, err := d.File().Stat()
	if err != nil || !fi.IsDir() {
		t.Errorf("File() is not the directory: %v", err)
	}
	if err := Check(want, Options{}); err != nil {
		t.Errorf("Check of the existing directory: %v", err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "x", "y"), Options{Create: true}); err == nil {
		t.Error("Open created a missing parent without Options.Parents")
	}
}

// TestOpenRefuses checks each refusal: the error names the component and
// says why.
func TestOpenRefuses(t *testing.T) {
	top := t.TempDir()
	real := filepath.Join(top, "real")
	mkdir(t, real, 0o700)
	if err := os.Symlink(real, filepath.Join(top, "link")); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(top, "open")
	mkdir(t, open, 0o777)
	sticky := filepath.Join(top, "sticky")
	mkdir(t, sticky, 0o777|os.ModeSticky)
	loose := filepath.Join(top, "loose")
	mkdir(t, loose, 0o755)
	if err := os.Symlink("open", filepath.Join(top, "toopen")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, bad, why string
	}{
		{filepath.Join(top, "link"), filepath.Join(top, "link"), "symbolic link"},
		{filepath.Join(top, "toopen", "cache"), open, "not sticky"},
		{filepath.Join(open, "cache"), open, "not sticky"},
		{sticky, sticky, "group and others must not write it (chmod go-w "},
		{loose, loose, "group and others must have no access (chmod go-rwx "},
	} {
		opt := Options{Create: true}
		if c.path == loose {
			opt.Deny = 0o077
		}
		_, err := Open(c.path, opt)
		var ue *UnsafeError
		if !errors.As(err, &ue) || !errors.Is(err, ErrUnsafe) {
			t.Errorf("Open(%s) = %v, want an UnsafeError", c.path, err)
			continue
		}
		if ue.Path != c.bad || !strings.Contains(err.Error(), c.why) {
			t.Errorf("Open(%s) = %q, want it to name %s and say %q", c.path, err, c.bad, c.why)
		}
	}
	if err := Check(filepath.Join(sticky, "mine"), Options{Create: true}); err != nil {
		t.Errorf("a private directory of the caller's in a sticky directory was refused: %v", err)
	}
	// A link of the caller's before the last component is followed (a
	// cluster's symbolic /home): the directory is made in its target.
	d, err := Open(filepath.Join(top, "link", "cache"), Options{Create: true})
	if err != nil {
		t.Fatalf("a path through the caller's own symbolic link was refused: %v", err)
	}
	d.Close()
	if fi, err := os.Stat(filepath.Join(real, "cache")); err != nil || !fi.IsDir() {
		t.Errorf("the directory was not made in the link's target: %v", err)
	}
}

// TestOpenOtherUser checks that a cache below a directory another user
// owns, with mode 0777, is refused, and so is a last component of theirs.
func TestOpenOtherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		testenv.Skip(t, "giving a directory to uid %d needs root", nobody)
	}
	top := t.TempDir()
	theirs := filepath.Join(top, "theirs")
	mkdir(t, theirs, 0o777)
	if err := os.Chown(theirs, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(theirs, "cape"), theirs} {
		_, err := Open(p, Options{Create: true})
		var ue *UnsafeError
		if !errors.As(err, &ue) || ue.Path != theirs || !strings.Contains(err.Error(), "owned by uid 65534") {
			t.Errorf("Open(%s) = %v, want it refused naming %s as owned by uid 65534", p, err, theirs)
		}
	}
	// A link another user owns is not followed, even to a safe place.
	mine := filepath.Join(top, "mine")
	mkdir(t, mine, 0o700)
	link := filepath.Join(top, "theirlink")
	if err := os.Symlink(mine, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(link, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(filepath.Join(link, "cape"), Options{Create: true}); !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "symbolic link owned by uid 65534") {
		t.Errorf("a path through another user's symbolic link: %v, want it refused", err)
	}
	if err := os.Chmod(theirs, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(filepath.Join(theirs, "cape"), Options{Create: true}); !errors.Is(err, ErrUnsafe) {
		t.Errorf("a directory owned by another user, mode 0755, was trusted: %v", err)
	}
}

func mkdir(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	if err := os.Mkdir(p, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}
