//go:build linux

package monitor

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cape-go/cape/internal/testenv"
	"golang.org/x/sys/unix"
)

// touchSink keeps touchPage's loads from being optimised away.
var touchSink byte

// touchPage reads one byte of page p of mem, from user mode.
func touchPage(mem []byte, p int) { touchSink += mem[p*unix.Getpagesize()] }

// checkUserModeOnly checks, on a lazy tracker with a user-mode-only
// userfaultfd, what the runtime's cape.Present relies on: a system call
// that writes into an invalidated page fails with EFAULT, or transfers
// less than asked where the buffer starts on a page in memory, and never
// reaches the helper; after a load from user mode has brought the page in,
// the same call works, and what it writes in a region is reported written.
func checkUserModeOnly(t *testing.T, lo LazyOptions) {
	const pages = 8
	ps := unix.Getpagesize()
	mem, tr, absent, rec := newLazyRecordedWith(t, pages, lo)
	if !tr.UserModeOnly() {
		t.Fatalf("UserModeOnly() = false with %+v as uid %d", lo, os.Getuid())
	}
	plainRegions(tr).mode = uffdModeFaults
	src := filepath.Join(t.TempDir(), "src")
	if err := os.WriteFile(src, bytes.Repeat([]byte{0x5A}, 2*ps), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fd := int(f.Fd())
	for _, p := range []int{2, 3, 5} {
		absent[p] = true
	}
	if err := tr.Invalidate([]int{2, 3, 5}); err != nil {
		t.Fatal(err)
	}
	if n, err := unix.Pread(fd, mem[2*ps:3*ps], 0); !errors.Is(err, unix.EFAULT) {
		t.Errorf("pread(2) into an invalidated page: %d, %v; want EFAULT", n, err)
	}
	if n, err := unix.Pread(fd, mem[ps:3*ps], 0); n != ps || err != nil {
		t.Errorf("pread(2) into a present page and an invalidated one: %d, %v; want a short read of %d bytes", n, err, ps)
	}
	p0 := []int{0, 0}
	if err := unix.Pipe2(p0, unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p0[0])
	defer unix.Close(p0[1])
	if n, err := unix.Write(p0[1], mem[5*ps:6*ps]); !errors.Is(err, unix.EFAULT) {
		t.Errorf("write(2) from an invalidated page: %d, %v; want EFAULT", n, err)
	}
	if f := rec.pages(); len(f) != 0 {
		t.Fatalf("the kernel's accesses reached the helper: faults on %v", f)
	}
	// A load from user mode brings page 3 in (write-protected, as the
	// helper installs a fetched page), then the kernel may write it.
	if err := tr.Start(len(mem)); err != nil {
		t.Fatal(err)
	}
	touchPage(mem, 3)
	absent[3] = false
	if n, err := unix.Pread(fd, mem[3*ps:4*ps], 0); n != ps || err != nil {
		t.Errorf("pread(2) into page 3 after a load from user mode: %d, %v", n, err)
	}
	dirty, err := tr.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dirty, []int{3}) {
		t.Errorf("dirty %v after pread(2) into page 3, want [3]", dirty)
	}
	if !bytes.Equal(mem[3*ps:4*ps], bytes.Repeat([]byte{0x5A}, ps)) {
		t.Errorf("page 3 does not hold what pread(2) read")
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(rec.pages()) == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if f := rec.pages(); !slices.Equal(f, []int{3}) {
		t.Errorf("faults on %v, want [3] (the load)", f)
	}
}

// A user-mode-only tracker, asked for by any user.
func TestLazyUserModeOnly(t *testing.T) {
	checkUserModeOnly(t, LazyOptions{Missing: true, UserMode: UserModeAlways})
}

// unprivChildEnv marks the test binary re-run as another user.
const unprivChildEnv = "CAPE_MONITOR_UNPRIV_CHILD"

// As a user who may not create a userfaultfd that handles the kernel's
// faults (uid 65534 with vm.unprivileged_userfaultfd=0), NewLazy refuses
// such a tracker with advice, and UserModeFallback gives a user-mode-only
// one that works as checkUserModeOnly says. Run as root, the test re-runs
// itself as uid 65534 with setpriv.
func TestLazyUserModeFallbackUnprivileged(t *testing.T) {
	if os.Getenv(unprivChildEnv) == "1" || os.Geteuid() != 0 {
		if b, err := os.ReadFile("/proc/sys/vm/unprivileged_userfaultfd"); err == nil && strings.TrimSpace(string(b)) != "0" {
			testenv.Skip(t, "vm.unprivileged_userfaultfd is %s: every user may have a full userfaultfd", strings.TrimSpace(string(b)))
		}
		_, err := NewLazy(mapArena(t, 4*unix.Getpagesize()), Options{}, LazyOptions{Missing: true})
		if !errors.Is(err, ErrNotSupported) || !errors.Is(err, unix.EPERM) || !strings.Contains(err.Error(), "vm.unprivileged_userfaultfd=1") {
			t.Fatalf("NewLazy without UserMode as uid %d: %v; want ErrNotSupported wrapping EPERM with advice", os.Geteuid(), err)
		}
		checkUserModeOnly(t, LazyOptions{Missing: true, UserMode: UserModeFallback})
		return
	}
	out, err := runAsNobody(t, "-test.run=^TestLazyUserModeFallbackUnprivileged$", "-test.v")
	if err != nil || !strings.Contains(out, "--- PASS: TestLazyUserModeFallbackUnprivileged") {
		t.Fatalf("the test as uid 65534: %v\n%s", err, out)
	}
}

// runAsNobody runs a copy of the test binary as uid 65534 with args and
// returns its combined output.
func runAsNobody(t *testing.T, args ...string) (string, error) {
	t.Helper()
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		testenv.Skip(t, "setpriv (util-linux) is not installed: cannot run the test as uid 65534")
	}
	dir, err := os.MkdirTemp("", "cape-unpriv-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	exe, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "monitor.test")
	if err := os.WriteFile(bin, exe, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(tmp, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(setpriv, append([]string{"--reuid=65534", "--regid=65534", "--clear-groups", bin}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), unprivChildEnv+"=1", "TMPDIR="+tmp)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
