//go:build linux

package cape

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/cape-go/cape/internal/testenv"
	"github.com/cape-go/cape/internal/uffd"
	"github.com/cape-go/cape/monitor"
	"golang.org/x/sys/unix"
)

// The present calls bring invalidated pages of a user-mode-only lazy
// tracker's memory in, so that system calls on them work: pread(2) into a
// slice over two such pages, writev(2) of rows (PresentAll), read(2) into
// an array through a pointer (PresentPtr); a page not made present still
// fails with EFAULT. A fault handler goroutine stands in for the helper.
func TestPresentUserModeOnly(t *testing.T) {
	const pages = 8
	ps := os.Getpagesize()
	mem, err := unix.Mmap(-1, 0, pages*ps, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Munmap(mem) })
	for p := range pages {
		mem[p*ps] = byte(p)
	}
	tr, err := monitor.NewLazy(mem, monitor.Options{}, monitor.LazyOptions{Missing: true, UserMode: monitor.UserModeAlways})
	if errors.Is(err, monitor.ErrNotSupported) {
		testenv.Skip(t, "%v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	var stop atomic.Bool
	done := make(chan struct{})
	go serveFaults(t, tr.UffdFD(), mem, &stop, done)
	t.Cleanup(func() { stop.Store(true); <-done })
	if err := tr.Invalidate([]int{1, 2, 3, 4, 5, 6, 7}); err != nil {
		t.Fatal(err)
	}
	setPresent(mem, ps, true)
	t.Cleanup(func() { setPresent(nil, 0, false) })

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
	if n, err := unix.Pread(fd, mem[6*ps:7*ps], 0); !errors.Is(err, unix.EFAULT) {
		t.Fatalf("pread(2) into an invalidated page: %d, %v; want EFAULT (the memory is not user-mode-only?)", n, err)
	}
	if n, err := unix.Pread(fd, Present(mem[ps+10:2*ps+10]), 0); n != ps || err != nil {
		t.Errorf("pread(2) into Present over pages 1-2: %d, %v", n, err)
	}
	pipe := []int{0, 0}
	if err := unix.Pipe2(pipe, unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pipe[0])
	defer unix.Close(pipe[1])
	rows := PresentAll([][]byte{mem[3*ps : 3*ps+100], mem[4*ps : 4*ps+100]})
	if n, err := unix.Writev(pipe[1], rows); n != 200 || err != nil {
		t.Errorf("writev(2) of PresentAll's rows on pages 3 and 4: %d, %v", n, err)
	}
	arr := PresentPtr((*[64]byte)(unsafe.Pointer(&mem[5*ps+8])))
	if n, err := unix.Pread(fd, arr[:], 0); n != 64 || err != nil {
		t.Errorf("pread(2) into PresentPtr's array on page 5: %d, %v", n, err)
	}
	heap := make([]byte, 3)
	if got := Present(heap); &got[0] != &heap[0] {
		t.Errorf("Present of Go memory returned another slice")
	}
}

// serveFaults resolves the missing faults on mem, as the pager helper
// does, with pages of 0xEE installed write-protected.
func serveFaults(t *testing.T, fd int, mem []byte, stop *atomic.Bool, done chan<- struct{}) {
	defer close(done)
	ps := os.Getpagesize()
	base := uint64(uintptr(unsafe.Pointer(&mem[0])))
	page := bytes.Repeat([]byte{0xEE}, ps)
	msgs := make([]uffd.Msg, 8)
	for !stop.Load() {
		if _, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 20); err != nil && !errors.Is(err, unix.EINTR) {
			t.Errorf("poll: %v", err)
			return
		}
		n, err := uffd.ReadMsgs(fd, msgs)
		if errors.Is(err, unix.EAGAIN) {
			continue
		}
		if err != nil {
			t.Errorf("read faults: %v", err)
			return
		}
		for _, m := range msgs[:n] {
			at := m.Address &^ uint64(ps-1)
			if _, err := uffd.Copy(fd, at, page, uffd.CopyModeWP); err != nil && !errors.Is(err, unix.EEXIST) {
				t.Errorf("resolve page %d: %v", (at-base)/uint64(ps), err)
			}
		}
	}
}
