package monitor

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"time"

	"github.com/cape-go/cape/internal/ptrace"
	"golang.org/x/sys/unix"
)

// ptraceTracker is the ptrace backend, the paper's mechanism: Start makes
// [0, extent) read-only; a helper process (this binary re-executed with
// ptraceHelperEnv set) traces every thread of this process, and at each
// first write to a page (SIGSEGV) copies the page into the shared twins,
// makes it writable by injecting mprotect into the faulting thread and lets
// the write proceed without delivering the signal. Stop makes the extent
// writable again and asks the helper for the pages. It is not safe for
// concurrent use.
//
// Limitations: a write by the kernel into the protected arena (read(2) into
// it) fails with EFAULT instead of being tracked; every signal the node
// receives is routed through the helper; each first write costs two
// context switches and an injected system call (tens of µs). Twin(p) of a
// page the region did not write reads the arena, so call it before the
// arena is written again.
type ptraceTracker struct {
	trackerState
	res *ptraceResources

	dirty   []int  // result of the last Stop, reused
	isDirty []bool // by page, for the last Stop
}

// ptraceResources is what Close releases.
type ptraceResources struct {
	helper *exec.Cmd
	sock   *os.File
	twin   []byte // the memfd, mapped shared with the helper
	gadget []byte // executable page holding ptrace.Gadget
}

func (r *ptraceResources) release() error {
	var errs []error
	if r.sock != nil {
		errs = append(errs, r.sock.Close()) // the helper exits at EOF, detaching
		r.sock = nil
	}
	if r.helper != nil {
		done := make(chan error, 1)
		go func() { done <- r.helper.Wait() }()
		select {
		case err := <-done:
			errs = append(errs, err)
		case <-time.After(5 * time.Second):
			errs = append(errs, r.helper.Process.Kill(), <-done)
		}
		r.helper = nil
	}
	for _, m := range [][]byte{r.twin, r.gadget} {
		if m != nil {
			errs = append(errs, unix.Munmap(m))
		}
	}
	r.twin, r.gadget = nil, nil
	return errors.Join(errs...)
}

// newPtrace returns a ptrace tracker that unprotects the aligned block of
// block pages around each faulting page.
func newPtrace(mem []byte, pageSize, block int) (Tracker, error) {
	return newPtraceHooked(mem, pageSize, block, 0)
}

// newPtraceHooked is newPtrace with a test hook: if overflowAfter > 0, the
// helper acts as if mprotect ran out of mappings after that many pages.
func newPtraceHooked(mem []byte, pageSize, block, overflowAfter int) (Tracker, error) {
	if ps := os.Getpagesize(); pageSize != ps {
		return nil, fmt.Errorf("%w: ptrace tracks system pages (%d bytes), not %d", ErrNotSupported, ps, pageSize)
	}
	res := &ptraceResources{}
	fail := func(err error) (Tracker, error) { return nil, errors.Join(err, res.release()) }
	var err error
	if res.gadget, err = unix.Mmap(-1, 0, pageSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS); err != nil {
		return fail(fmt.Errorf("ptrace: map gadget: %w", err))
	}
	copy(res.gadget, ptrace.Gadget)
	if err := unix.Mprotect(res.gadget, unix.PROT_READ|unix.PROT_EXEC); err != nil {
		return fail(fmt.Errorf("ptrace: map gadget: %w", err))
	}
	memfd, err := unix.MemfdCreate("cape-twins", unix.MFD_CLOEXEC)
	if err != nil {
		return fail(fmt.Errorf("ptrace: twins: %w", err))
	}
	twinFile := os.NewFile(uintptr(memfd), "cape-twins")
	defer twinFile.Close()
	if err := unix.Ftruncate(memfd, int64(len(mem))); err != nil {
		return fail(fmt.Errorf("ptrace: twins: %w", err))
	}
	if res.twin, err = unix.Mmap(memfd, 0, len(mem), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED); err != nil {
		return fail(fmt.Errorf("ptrace: twins: %w", err))
	}
	if err := startHelper(res, mem, pageSize, block, overflowAfter, twinFile); err != nil {
		return fail(err)
	}
	t := &ptraceTracker{trackerState: trackerState{mem: mem, pageSize: pageSize}, res: res, isDirty: make([]bool, len(mem)/pageSize)}
	runtime.AddCleanup(t, func(r *ptraceResources) { _ = r.release() }, res)
	return t, nil
}

// startHelper re-executes this binary as the helper, lets it trace this
// process and waits until it has attached to every thread.
func startHelper(res *ptraceResources, mem []byte, pageSize, block, overflowAfter int, twinFile *os.File) error {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("ptrace: socketpair: %w", err)
	}
	if err := unix.SetNonblock(fds[0], true); err != nil { // pollable: deadlines work
		unix.Close(fds[0])
		unix.Close(fds[1])
		return fmt.Errorf("ptrace: socketpair: %w", err)
	}
	res.sock = os.NewFile(uintptr(fds[0]), "ptrace-helper")
	child := os.NewFile(uintptr(fds[1]), "node")
	defer child.Close()

	cmd := exec.Command("/proc/self/exe")
	cmd.Args[0] = "cape-ptrace-helper"
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d %d %d %d %d %d %d", ptraceHelperEnv,
		os.Getpid(), uint64(addrOf(mem)), len(mem), pageSize, uint64(addrOf(res.gadget)), block, overflowAfter))
	cmd.ExtraFiles = []*os.File{child, twinFile} // helperSockFD, helperTwinFD
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("ptrace: start helper: %w", err)
	}
	res.helper = cmd
	// Yama's ptrace_scope=1 lets only ancestors trace: name the helper.
	// EINVAL means Yama is absent, which is fine.
	if err := unix.Prctl(unix.PR_SET_PTRACER, uintptr(cmd.Process.Pid), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("ptrace: PR_SET_PTRACER: %w", err)
	}
	if _, _, err := res.call(0, 0, 10*time.Second); err != nil {
		return fmt.Errorf("%w: %w", ErrNotSupported, err)
	}
	return nil
}

// call sends the command op with arg to the helper (none if op is 0) and
// reads its answer.
func (r *ptraceResources) call(op, arg uint64, timeout time.Duration) (uint64, []int, error) {
	if err := r.sock.SetDeadline(time.Now().Add(timeout)); err != nil {
		return 0, nil, fmt.Errorf("ptrace helper: %w", err)
	}
	if op != 0 {
		if err := writeWords(r.sock, op, arg); err != nil {
			return 0, nil, fmt.Errorf("ptrace helper: %w", err)
		}
	}
	code, pages, err := readAnswer(r.sock, nil)
	if err != nil {
		return 0, nil, fmt.Errorf("ptrace helper: %w", err)
	}
	return code, pages, nil
}

func (t *ptraceTracker) Name() string { return BackendPtrace }

func (t *ptraceTracker) Start(extent int) error {
	if err := t.checkStart(extent); err != nil {
		return err
	}
	for _, p := range t.dirty {
		t.isDirty[p] = false
	}
	t.dirty = t.dirty[:0]
	if _, _, err := t.res.call(opStart, uint64(extent), 10*time.Second); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	if extent > 0 {
		if err := unix.Mprotect(t.mem[:extent], unix.PROT_READ); err != nil {
			return fmt.Errorf("start: mprotect: %w", err)
		}
	}
	t.enter(extent)
	return nil
}

func (t *ptraceTracker) Stop() ([]int, error) {
	if err := t.leave(); err != nil {
		return nil, err
	}
	if t.extent > 0 {
		if err := unix.Mprotect(t.mem[:t.extent], unix.PROT_READ|unix.PROT_WRITE); err != nil {
			return nil, fmt.Errorf("stop: mprotect: %w", err)
		}
	}
	code, words, err := t.res.call(opStop, 0, time.Minute)
	if err != nil {
		return nil, fmt.Errorf("stop: %w", err)
	}
	// Pages written at a fault are dirty; pages unprotected with a
	// faulting neighbour (its block) are dirty if they changed.
	pages := words[:0]
	var spec []int
	for _, w := range words {
		if w&flagSpeculative != 0 {
			spec = append(spec, w&^flagSpeculative)
			continue
		}
		t.isDirty[w] = true
		pages = append(pages, w)
	}
	if code == codeOverflow {
		// Too many mappings: the helper saved every other twin and
		// unprotected the extent; compare the pages it did not catch.
		spec = spec[:0]
		for p := range t.extent / t.pageSize {
			if !t.isDirty[p] {
				spec = append(spec, p)
			}
		}
	}
	for _, p := range spec {
		off := p * t.pageSize
		if !t.isDirty[p] && !bytes.Equal(t.mem[off:off+t.pageSize], t.res.twin[off:off+t.pageSize]) {
			t.isDirty[p] = true
			pages = append(pages, p)
		}
	}
	slices.Sort(pages)
	t.dirty = append(t.dirty[:0], pages...)
	return t.dirty, nil
}

func (t *ptraceTracker) Twin(p int) []byte {
	off, ok := t.twinOffset(p)
	if !ok {
		return nil
	}
	tw := t.res.twin[off : off+t.pageSize : off+t.pageSize]
	if !t.isDirty[p] {
		copy(tw, t.mem[off:off+t.pageSize]) // not written: the arena holds it
	}
	return tw
}

func (t *ptraceTracker) Close() error {
	if !t.close() {
		return nil
	}
	if t.started && t.extent > 0 {
		_ = unix.Mprotect(t.mem[:t.extent], unix.PROT_READ|unix.PROT_WRITE)
	}
	return t.res.release()
}
