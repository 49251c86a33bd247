package monitor

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"

	"github.com/cape-go/cape/internal/ptrace"
	"golang.org/x/sys/unix"
)

// ptraceHelperEnv, when set in the environment, turns the process into the
// ptrace backend's helper (see runPtraceHelper) before main runs. Its value
// is "pid base size pagesize gadget block overflowAfter" in decimal.
const ptraceHelperEnv = "CAPE_MONITOR_PTRACE_HELPER"

// The helper's inherited descriptors.
const (
	helperSockFD = 3 // stream socket to the node
	helperTwinFD = 4 // memfd holding the twins, shared with the node
)

func init() {
	if v, ok := os.LookupEnv(ptraceHelperEnv); ok {
		os.Exit(runPtraceHelper(v))
	}
}

// ptraceHelper traces every thread of the node. All ptrace requests are
// made by the goroutine that runs runPtraceHelper, locked to its OS thread;
// the command goroutine only touches the fields under mu.
type ptraceHelper struct {
	pid      int
	base     uint64
	size     int
	pageSize int
	gadget   uintptr
	block    int    // pages unprotected per fault: the aligned block around it
	twin     []byte // the node's twins, shared
	// overflowAfter, if positive, simulates running out of mappings after
	// that many pages (a test hook).
	overflowAfter int

	mu sync.Mutex
	// mu protects the following fields.
	active   bool
	extent   int
	overflow bool
	dirty    []uint64    // pages unprotected this region, in order
	state    []pageState // by page
}

// pageState is what the helper knows of a page in the current region.
type pageState uint8

const (
	pageProtected   pageState = iota // read-only, twin not taken
	pageSpeculative                  // twin taken, unprotected with a faulting neighbour
	pageFaulted                      // twin taken, unprotected at a write fault on it
)

func runPtraceHelper(arg string) int {
	runtime.LockOSThread()
	sock := os.NewFile(helperSockFD, "node")
	h := &ptraceHelper{}
	if _, err := fmt.Sscan(arg, &h.pid, &h.base, &h.size, &h.pageSize, &h.gadget, &h.block, &h.overflowAfter); err != nil {
		fmt.Fprintf(os.Stderr, "cape ptrace helper: bad %s=%q: %v\n", ptraceHelperEnv, arg, err)
		return 2
	}
	twin, err := unix.Mmap(helperTwinFD, 0, h.size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err == nil {
		h.twin = twin
		h.state = make([]pageState, h.size/h.pageSize)
		h.block = max(h.block, 1)
		err = h.seizeAll()
	}
	if err != nil {
		msg := err.Error()
		_ = writeWords(sock, codeError, uint64(len(msg)))
		_, _ = sock.Write([]byte(msg))
		return 1
	}
	if err := writeWords(sock, codeOK, 0); err != nil {
		return 1
	}
	go h.serve(sock)
	if err := h.traceLoop(); err != nil {
		fmt.Fprintf(os.Stderr, "cape ptrace helper: %v\n", err)
		return 1
	}
	return 0
}

// seizeAll attaches to every thread of the node, listing them again until
// no new one appears; from then on PTRACE_O_TRACECLONE follows new threads.
func (h *ptraceHelper) seizeAll() error {
	seen := map[int]bool{}
	for {
		tids, err := ptrace.Threads(h.pid)
		if err != nil {
			return err
		}
		added := 0
		for _, tid := range tids {
			if seen[tid] {
				continue
			}
			seen[tid] = true
			added++
			err := ptrace.Seize(tid, unix.PTRACE_O_TRACECLONE)
			if errors.Is(err, unix.ESRCH) {
				continue // exited meanwhile
			}
			if err != nil {
				return ptraceAdvice(err)
			}
		}
		if added == 0 {
			return nil
		}
	}
}

// serve answers the node's commands until the socket closes, then ends the
// helper; exiting detaches every tracee.
func (h *ptraceHelper) serve(sock *os.File) {
	var cmd [2]uint64
	for {
		if err := readWords(sock, cmd[:]); err != nil {
			code := 0
			if !errors.Is(err, io.EOF) {
				code = 1
			}
			os.Exit(code)
		}
		var err error
		switch cmd[0] {
		case opStart:
			h.mu.Lock()
			for _, p := range h.dirty {
				h.state[p] = pageProtected
			}
			h.dirty, h.overflow = h.dirty[:0], false
			h.extent, h.active = int(cmd[1]), true
			h.mu.Unlock()
			err = writeWords(sock, codeOK, 0)
		case opStop:
			h.mu.Lock()
			h.active = false
			code := codeOK
			if h.overflow {
				code = codeOverflow
			}
			words := make([]uint64, 0, 2+len(h.dirty))
			words = append(words, code, uint64(len(h.dirty)))
			for _, p := range h.dirty {
				if h.state[p] == pageSpeculative {
					p |= flagSpeculative
				}
				words = append(words, p)
			}
			err = writeWords(sock, words...)
			h.mu.Unlock()
		default:
			err = fmt.Errorf("unknown command %d", cmd[0])
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "cape ptrace helper: %v\n", err)
			os.Exit(1)
		}
	}
}

// traceLoop handles the tracees' stops until none is left.
func (h *ptraceHelper) traceLoop() error {
	for {
		var ws unix.WaitStatus
		tid, err := unix.Wait4(-1, &ws, unix.WALL, nil)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.ECHILD):
			return nil // the node is gone
		case err != nil:
			return fmt.Errorf("wait: %w", err)
		}
		if !ws.Stopped() {
			continue // a thread exited
		}
		sig, ev := ws.StopSignal(), ptrace.Event(ws)
		switch {
		case ev == unix.PTRACE_EVENT_STOP:
			switch sig {
			case unix.SIGSTOP, unix.SIGTSTP, unix.SIGTTIN, unix.SIGTTOU:
				err = ptrace.Listen(tid) // group-stop: stay stopped
			default:
				err = unix.PtraceCont(tid, 0) // a new thread's first stop
			}
		case ev != 0:
			err = unix.PtraceCont(tid, 0) // PTRACE_EVENT_CLONE
		case sig == unix.SIGSEGV:
			err = h.fault(tid)
		default:
			err = unix.PtraceCont(tid, int(sig))
		}
		if err != nil && !errors.Is(err, unix.ESRCH) && !errors.Is(err, ptrace.ErrThreadGone) {
			return err
		}
	}
}

// fault handles a SIGSEGV stop of tid: a first write to a protected arena
// page saves its twin, makes it writable and retries the write; any other
// SIGSEGV is delivered.
func (h *ptraceHelper) fault(tid int) error {
	si, err := ptrace.GetSiginfo(tid)
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	off := si.Addr - h.base
	if !h.active || si.Addr < h.base || off >= uint64(h.extent) || si.Code != segvAccErr {
		return unix.PtraceCont(tid, int(unix.SIGSEGV))
	}
	p := int(off) / h.pageSize
	var pending []int
	switch {
	case h.state[p] == pageSpeculative:
		// Unprotected with a neighbour while this thread was faulting.
		h.state[p] = pageFaulted
	case h.state[p] == pageProtected && !h.overflow:
		if pending, err = h.unprotect(tid, p); err != nil {
			// The write cannot proceed: let the node die of it, loudly.
			fmt.Fprintf(os.Stderr, "cape ptrace helper: page %d: %v\n", p, err)
			return unix.PtraceCont(tid, int(unix.SIGSEGV))
		}
	}
	for _, s := range pending {
		_ = unix.Tgkill(h.pid, tid, unix.Signal(s))
	}
	return unix.PtraceCont(tid, 0)
}

// segvAccErr is SEGV_ACCERR: a write to a mapped page it may not write.
const segvAccErr = 2

// unprotect saves the twins of the still protected pages of p's block
// (the aligned block of h.block pages around p, clipped to the extent) and
// makes the block writable by injecting mprotect into tid. Every twin is
// taken while its page is still read-only, so it is the page's content at
// Start. When the kernel refuses for lack of mappings (each writable block
// splits the arena's mapping, vm.max_map_count), it saves the twins of
// every page still protected and unprotects the whole extent; Stop then
// finds the rest by comparison.
func (h *ptraceHelper) unprotect(tid, p int) ([]int, error) {
	lo := p - p%h.block
	hi := min(lo+h.block, h.extent/h.pageSize)
	if err := h.saveProtected(lo, hi); err != nil {
		return nil, err
	}
	var ret int64
	var pending []int
	if h.overflowAfter > 0 && len(h.dirty) >= h.overflowAfter {
		ret = -int64(unix.ENOMEM)
	} else {
		addr := uintptr(h.base) + uintptr(lo*h.pageSize)
		var err error
		ret, pending, err = ptrace.InjectSyscall(tid, h.gadget, unix.SYS_MPROTECT, addr, uintptr((hi-lo)*h.pageSize), unix.PROT_READ|unix.PROT_WRITE)
		if err != nil {
			return pending, err
		}
	}
	if ret == -int64(unix.ENOMEM) {
		// The block's twins are saved; exclude it from the sweep.
		h.markBlock(lo, hi, p)
		if err := h.saveProtected(0, h.extent/h.pageSize); err != nil {
			return pending, err
		}
		more, err := []int(nil), error(nil)
		ret, more, err = ptrace.InjectSyscall(tid, h.gadget, unix.SYS_MPROTECT, uintptr(h.base), uintptr(h.extent), unix.PROT_READ|unix.PROT_WRITE)
		pending = append(pending, more...)
		if err != nil {
			return pending, err
		}
		h.overflow = true
	}
	if ret < 0 {
		return pending, fmt.Errorf("mprotect in thread %d: %w", tid, unix.Errno(-ret))
	}
	h.markBlock(lo, hi, p)
	return pending, nil
}

// markBlock records pages [lo, hi) as unprotected: p as faulted, the
// others, if still protected, as speculative.
func (h *ptraceHelper) markBlock(lo, hi, p int) {
	for q := lo; q < hi; q++ {
		if h.state[q] == pageProtected {
			h.state[q] = pageSpeculative
			h.dirty = append(h.dirty, uint64(q))
		}
	}
	h.state[p] = pageFaulted
}

// saveProtected saves the twins of the protected pages in [lo, hi), one
// process_vm_readv per run of them.
func (h *ptraceHelper) saveProtected(lo, hi int) error {
	for lo < hi {
		for lo < hi && h.state[lo] != pageProtected {
			lo++
		}
		end := lo
		for end < hi && h.state[end] == pageProtected {
			end++
		}
		if lo < end {
			if err := h.saveTwins(lo, end); err != nil {
				return err
			}
		}
		lo = end
	}
	return nil
}

// saveTwins copies pages [lo, hi) from the node into the shared twins.
func (h *ptraceHelper) saveTwins(lo, hi int) error {
	ps := h.pageSize
	local := []unix.Iovec{{Base: &h.twin[lo*ps]}}
	local[0].SetLen((hi - lo) * ps)
	remote := []unix.RemoteIovec{{Base: uintptr(h.base) + uintptr(lo*ps), Len: (hi - lo) * ps}}
	n, err := unix.ProcessVMReadv(h.pid, local, remote, 0)
	if err != nil {
		return fmt.Errorf("process_vm_readv pages [%d, %d): %w", lo, hi, err)
	}
	if n != (hi-lo)*ps {
		return fmt.Errorf("process_vm_readv pages [%d, %d): %d bytes read", lo, hi, n)
	}
	return nil
}

// ptraceAdvice names the knob behind a refused attach.
func ptraceAdvice(err error) error {
	if errors.Is(err, unix.EPERM) {
		scope := "absent (no Yama)"
		if b, rerr := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope"); rerr == nil {
			scope = string(b[:len(b)-1])
		}
		return fmt.Errorf("%w: ptrace: attaching to the node is denied: /proc/sys/kernel/yama/ptrace_scope is %s "+
			"(1 is fine, the node names its helper with PR_SET_PTRACER; 2 needs CAP_SYS_PTRACE; 3 forbids ptrace), "+
			"or a seccomp profile denies ptrace (container runtimes' default profiles do): %w", ErrNotSupported, scope, err)
	}
	return fmt.Errorf("ptrace: %w", err)
}
