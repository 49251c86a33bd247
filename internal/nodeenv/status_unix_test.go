//go:build unix

package nodeenv

import (
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// TestStatusPipeTakenOver checks that the runtime takes the launcher's
// status pipe over: the variable naming it leaves the environment, and the
// descriptor is close-on-exec, so the program's children cannot write
// reports in the node's name.
func TestStatusPipeTakenOver(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// A descriptor as the launcher passes it: inheritable.
	fd, err := unix.Dup(int(w.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Setenv(StatusFD, strconv.Itoa(fd))
	f, err := openStatus()
	if err != nil || f == nil {
		t.Fatalf("openStatus: %v, %v", f, err)
	}
	defer f.Close()
	if v, ok := os.LookupEnv(StatusFD); ok {
		t.Errorf("%s=%q is still in the program's environment", StatusFD, v)
	}
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	if err != nil {
		t.Fatal(err)
	}
	if flags&unix.FD_CLOEXEC == 0 {
		t.Errorf("the status pipe (fd %d) is inherited by the program's children: flags %#x", fd, flags)
	}
}
