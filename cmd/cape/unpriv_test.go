//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cape-go/cape/internal/testenv"
)

// unprivProgram is a user's program whose regions and sequential code
// hand shared slices to system calls: write(2) and read(2) in sequential
// code (os.File.WriteAt, io.ReadFull), pwrite(2) and pread(2) in a region,
// each on chunks that the other node wrote in the region before, so that a
// slave with lazy transfer lacks their pages when the kernel accesses them.
const unprivProgram = `package main

import (
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"syscall"
)

const (
	chunk  = 5*4096 + 123 // bytes per iteration: chunks straddle pages
	chunks = 8
)

func main() {
	size := chunk * chunks
	data := make([]byte, size)
	back := make([]byte, size)
	mid := make([]byte, size)
	echo := make([]byte, size)
	for i := range data {
		data[i] = byte(i * 7)
	}
	scratch, err := os.CreateTemp("", "unpriv-scratch-")
	if err != nil {
		panic(err)
	}
	defer os.Remove(scratch.Name())
	fd := int(scratch.Fd())
	for round := 0; round < 3; round++ {
		//cape:parallel for
		for c := 0; c < chunks; c++ {
			for j := c * chunk; j < (c+1)*chunk; j++ {
				data[j] = data[j]*3 + byte(round)
				mid[j] = data[j] ^ 0x5A
				echo[j] = 0xFF
				back[j] = 0xEE
			}
		}
		// Sequential code: write(2) from shared memory, read(2) into it.
		if _, err := scratch.WriteAt(data, 0); err != nil {
			panic(err)
		}
		if _, err := scratch.Seek(0, io.SeekStart); err != nil {
			panic(err)
		}
		if _, err := io.ReadFull(scratch, back); err != nil {
			panic(err)
		}
		//cape:parallel for
		for c := 0; c < chunks; c++ {
			k := chunks - 1 - c // the chunks the other node wrote last
			off := int64(size + k*chunk)
			if n, err := syscall.Pwrite(fd, mid[k*chunk:(k+1)*chunk], off); err != nil || n != chunk {
				panic(fmt.Sprintf("pwrite chunk %d: %d, %v", k, n, err))
			}
			if n, err := syscall.Pread(fd, echo[k*chunk:(k+1)*chunk], off); err != nil || n != chunk {
				panic(fmt.Sprintf("pread chunk %d: %d, %v", k, n, err))
			}
		}
	}
	h := fnv.New64a()
	h.Write(data)
	h.Write(back)
	h.Write(echo)
	fmt.Printf("data[%d]=%d back[%d]=%d echo[%d]=%d hash=%x\n", size-1, data[size-1], chunk, back[chunk], 3, echo[3], h.Sum64())
}
`

// TestLazyTransferUnprivileged runs unprivProgram on 2 nodes with
// --transfer lazy as uid 65534, who may not have a userfaultfd that handles
// the kernel's faults (vm.unprivileged_userfaultfd=0): lazy transfer must
// be used anyway, with a user-mode-only userfaultfd, the output must be go
// run's, and no node may be lost (without the translator's cape.Present
// calls the slave's first write(2) fails with EFAULT and the master
// finishes alone: the right output, but not by lazy transfer).
func TestLazyTransferUnprivileged(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	u := setUpUnprivileged(t)
	stdout, errs, err := u.run(nil, "run", "-n", "2", "--transfer", "lazy", "--max-lost", "0", "--stats", u.prog)
	if err != nil {
		t.Fatalf("cape run as uid %s: %v\nstderr:\n%s", otherUID, err, errs)
	}
	if stdout != u.want {
		t.Errorf("cape run -n 2 --transfer lazy as uid %s printed %q, go run %q", otherUID, stdout, u.want)
	}
	if !strings.Contains(errs, "[node 1] cape: node 1: transfer lazy: pages move on first touch, through a user-mode-only userfaultfd") {
		t.Errorf("the slave did not say it used a user-mode-only userfaultfd:\n%s", errs)
	}
	for _, bad := range []string{"unavailable", "lost", "panic", "EFAULT", "bad address"} {
		if strings.Contains(errs, bad) {
			t.Errorf("stderr says %q:\n%s", bad, errs)
		}
	}
	var notices, fetched int
	for _, m := range lazyStatsRE.FindAllStringSubmatch(errs, -1) {
		w, _ := strconv.Atoi(m[3])
		f, _ := strconv.Atoi(m[4])
		notices, fetched = notices+w, fetched+f
	}
	if notices == 0 || fetched == 0 {
		t.Errorf("%d write notices, %d bytes fetched: want lazy transfer, both above zero\n%s", notices, fetched, errs)
	}
}

// TestHomesUnprivileged runs unprivProgram on 3 nodes as uid 65534 with
// the default transfer, distributed homes, on user-mode-only
// userfaultfds: the output must be go run's; then with a slave lost in its
// second region, whose pages the master reads from its buddy's replica.
func TestHomesUnprivileged(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	u := setUpUnprivileged(t)
	for _, fault := range []string{"", "node=1,at=send,do=exit,region=2"} {
		var env []string
		if fault != "" {
			env = []string{"CAPE_FAULT=" + fault}
		}
		stdout, errs, err := u.run(env, "run", "-n", "3", "--stats", u.prog)
		if err != nil {
			t.Fatalf("%q: cape run as uid %s: %v\nstderr:\n%s", fault, otherUID, err, errs)
		}
		if stdout != u.want {
			t.Errorf("%q: cape run -n 3 as uid %s printed %q, go run %q", fault, otherUID, stdout, u.want)
		}
		if !homesUserModeRE.MatchString(errs) {
			t.Errorf("%q: the master did not say it used distributed homes with a user-mode-only userfaultfd:\n%s", fault, errs)
		}
		if fault != "" && !strings.Contains(errs, "took over the") {
			t.Errorf("%q: the master did not take node 1's pages over:\n%s", fault, errs)
		}
		for _, bad := range []string{"unavailable", "panic", "EFAULT", "bad address"} {
			if strings.Contains(errs, bad) {
				t.Errorf("%q: stderr says %q:\n%s", fault, bad, errs)
			}
		}
	}
}

// homesUserModeRE matches the master's --stats line saying it runs
// distributed homes on a user-mode-only userfaultfd.
var homesUserModeRE = regexp.MustCompile(`(?m)^cape: master: transfer homes: pages move on first touch, through a user-mode-only userfaultfd`)

// unprivileged is unprivProgram built for uid 65534: the cape binary and
// the program where that user may run them, its working directory, and go
// run's output.
type unprivileged struct{ bin, prog, tmp, want string }

// setUpUnprivileged builds unprivileged, or skips where uid 65534 would
// get a userfaultfd that handles the kernel's faults.
func setUpUnprivileged(t *testing.T) unprivileged {
	if b, err := os.ReadFile("/proc/sys/vm/unprivileged_userfaultfd"); err != nil || strings.TrimSpace(string(b)) != "0" {
		testenv.Skip(t, "vm.unprivileged_userfaultfd is not 0 (%q, %v): uid %s would get a full userfaultfd", b, err, otherUID)
	}
	top, _ := otherUserCape(t, "cape-unpriv-")
	u := unprivileged{bin: filepath.Join(top, "cape"), prog: filepath.Join(top, "unpriv"), tmp: filepath.Join(top, "tmp")}
	dir := t.TempDir()
	for name, src := range map[string]string{"main.go": unprivProgram, "go.mod": "module example.com/unpriv\n\ngo 1.26\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	u.want = goRun(t, dir)
	capeIn(t, u.bin, dir, nil, "build", ".", "-o", u.prog)
	if err := os.Mkdir(u.tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(u.tmp, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(u.prog, 0o755); err != nil {
		t.Fatal(err)
	}
	return u
}

// run runs the cape binary with args as uid 65534, with env added to a
// bare environment.
func (u unprivileged) run(env []string, args ...string) (stdout, stderr string, err error) {
	cmd := exec.Command("setpriv", append([]string{"--reuid=" + otherUID, "--regid=" + otherUID, "--clear-groups", u.bin}, args...)...)
	cmd.Dir = u.tmp
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "TMPDIR=" + u.tmp}, env...)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	err = cmd.Run()
	return out.String(), errs.String(), err
}
