//go:build linux

package pager

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Helper is a slave's running helper process. Its methods may be called
// from any goroutine; SetVersion, MarkInvalid and ClearInvalid are single
// atomic stores into the shared state.
type Helper struct {
	cmd    *exec.Cmd
	sock   *os.File
	state  *state
	npages int

	done chan struct{} // closed when the helper process has ended
	err  error         // why it ended; set before done is closed

	ready    chan struct{} // closed when the helper answered its configuration
	readyErr error         // what it answered, if not ok; set before ready is closed

	closeOnce sync.Once

	rd   *bufio.Reader // the helper's answers on the socket
	port int           // a serving helper's page server port
	snap []byte        // a serving helper's snapshot, mapped by the node
	pend []byte        // a serving helper's pending file, mapped by the node
	// A serving helper's node's own replica (self replicas): its two
	// slots a page are in snap and pend, their versions in ownVer.
	ownVer  []byte
	ownVers []uint64
	ps      int
}

// wireConfig is what the node sends the helper on its socket.
type wireConfig struct {
	Rank, Size  int
	Job         uint64
	Token       []byte
	Master      string
	Servers     []string // distributed homes: sent by Connect, not in the first configuration
	Serve       bool
	ServeHost   string
	PeerTimeout time.Duration
	Base        uint64
	ArenaSize   int
	PageSize    int
}

// Start starts the helper of the node described by cfg and returns once
// the process runs: it connects to the master's page server at cfg.Master
// meanwhile (Ready waits for that). Until the node invalidates a page, no
// fault needs the helper (monitor.LazyOptions.Missing).
func Start(cfg Config) (*Helper, error) {
	ps := cfg.PageSize
	if ps <= 0 || cfg.ArenaSize <= 0 || cfg.ArenaSize%ps != 0 || cfg.Base%uint64(ps) != 0 {
		return nil, fmt.Errorf("pager: invalid arena [%#x, +%d) of %d-byte pages", cfg.Base, cfg.ArenaSize, ps)
	}
	npages := cfg.ArenaSize / ps
	sfd, err := newStateFile(npages)
	if err != nil {
		return nil, fmt.Errorf("pager: %w", err)
	}
	stateFile := os.NewFile(uintptr(sfd), "cape-pager-state")
	defer stateFile.Close()
	st, err := mapState(sfd, npages)
	if err != nil {
		return nil, fmt.Errorf("pager: %w", err)
	}
	h := &Helper{state: st, npages: npages, done: make(chan struct{}), ready: make(chan struct{})}
	if err := h.start(cfg, stateFile); err != nil {
		close(h.ready)
		return nil, errors.Join(fmt.Errorf("pager: %w", err), h.Close())
	}
	return h, nil
}

// start runs the helper process, sends it its configuration and waits for
// its first answer in a goroutine (Ready).
func (h *Helper) start(cfg Config, stateFile *os.File) error {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("socketpair: %w", err)
	}
	h.sock = os.NewFile(uintptr(pair[0]), "cape-pager")
	child := os.NewFile(uintptr(pair[1]), "cape-pager-child")
	defer child.Close()
	files := []*os.File{child}
	for _, fd := range []int{cfg.UffdFD, cfg.TwinFD} {
		d, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("duplicate descriptor %d: %w", fd, err)
		}
		f := os.NewFile(uintptr(d), "cape-pager-fd")
		defer f.Close()
		files = append(files, f)
	}
	files = append(files, stateFile)
	if cfg.Serve {
		// The snapshot, the pending file (with self replicas, the own
		// replica's two slots) and the own replica's versions: address
		// space only until written.
		npages := cfg.ArenaSize / cfg.PageSize
		for _, f := range []struct {
			m    *[]byte
			size int
		}{{&h.snap, cfg.ArenaSize}, {&h.pend, cfg.ArenaSize}, {&h.ownVer, 16 * npages}} {
			file, err := newShared(f.size, f.m)
			if err != nil {
				return err
			}
			defer file.Close()
			files = append(files, file)
		}
		h.ownVers, h.ps = wordsOf(h.ownVer), cfg.PageSize
	}
	cmd := exec.Command("/proc/self/exe")
	cmd.Env = append(helperEnv(), HelperEnv+"=1")
	cmd.Stderr = os.Stderr
	cmd.ExtraFiles = files
	// No parent-death signal: it follows the thread that started the
	// helper, which may end before the node. The helper ends when the
	// node's end of the socket closes, or when it sees the node gone
	// (watchNode); a helper told to keep serving leaves the node's process
	// group, so that the launcher's kill of the node spares it, and ends
	// once the node's pages are no longer needed (orphan_linux.go).
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the helper: %w", err)
	}
	h.cmd = cmd
	go func() {
		err := cmd.Wait()
		if err == nil {
			err = errors.New("exited")
		}
		h.err = err
		close(h.done)
	}()
	w := wireConfig{Rank: cfg.Rank, Size: cfg.Size, Job: cfg.Job, Token: cfg.Token, Master: cfg.Master,
		Serve: cfg.Serve, ServeHost: cfg.ServeHost, PeerTimeout: cfg.PeerTimeout, Base: cfg.Base, ArenaSize: cfg.ArenaSize, PageSize: cfg.PageSize}
	if err := json.NewEncoder(h.sock).Encode(&w); err != nil {
		return fmt.Errorf("configure the helper: %w", err)
	}
	h.rd = bufio.NewReader(h.sock)
	go func() {
		defer close(h.ready)
		line, err := h.readLine()
		switch {
		case err != nil:
			h.readyErr = err
		case cfg.Serve:
			h.port, h.readyErr = parsePort(line)
		case line != "ok":
			h.readyErr = fmt.Errorf("helper: %s", line)
		}
	}()
	return nil
}

// readLine reads the helper's next line on the socket: an answer, or its
// error, or why it ended.
func (h *Helper) readLine() (string, error) {
	line, err := h.rd.ReadString('\n')
	if err != nil {
		<-h.done
		return "", fmt.Errorf("the helper ended before it was ready (%v): %w", h.err, err)
	}
	line = strings.TrimSpace(line)
	if msg, ok := strings.CutPrefix(line, "error: "); ok {
		return "", fmt.Errorf("helper: %s", msg)
	}
	return line, nil
}

// newShared creates a file of size bytes the node writes and its helper
// reads (distributed homes: the snapshot of the pages the node holds, and
// the pending file of those it wrote, to replicate), and maps it at *m.
func newShared(size int, m *[]byte) (*os.File, error) {
	fd, err := unix.MemfdCreate("cape-pager-shared", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), "cape-pager-shared")
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		f.Close()
		return nil, fmt.Errorf("size the shared file: %w", err)
	}
	if *m, err = unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_NORESERVE); err != nil {
		f.Close()
		return nil, fmt.Errorf("map the shared file: %w", err)
	}
	return f, nil
}

// Port waits until a serving helper listens (Config.Serve) and returns
// its page server's port.
func (h *Helper) Port() (int, error) {
	if err := h.Ready(); err != nil {
		return 0, err
	}
	return h.port, nil
}

// Connect gives a serving helper the other nodes' page servers by rank
// and waits until it is connected to each.
func (h *Helper) Connect(servers []string) error {
	if _, err := h.Port(); err != nil {
		return err
	}
	return h.askOK(servers, "give the helper the page servers")
}

// ask sends the helper v, a request (what names it in errors), and returns
// the line it answers.
func (h *Helper) ask(v any, what string) (string, error) {
	if err := json.NewEncoder(h.sock).Encode(v); err != nil {
		return "", fmt.Errorf("pager: %s: %w", what, err)
	}
	line, err := h.readLine()
	if err != nil {
		return "", fmt.Errorf("pager: %w", err)
	}
	return line, nil
}

// askOK is ask for a request the helper answers "ok".
func (h *Helper) askOK(v any, what string) error {
	line, err := h.ask(v, what)
	if err == nil && line != "ok" {
		err = fmt.Errorf("pager: helper: %s", line)
	}
	return err
}

// Snapshot is the memory the node keeps the pages it holds in, page p at
// p × the page size (distributed homes); BeginUpdate before it writes it,
// SetVersion after.
func (h *Helper) Snapshot() []byte { return h.snap }

// Pending is the memory the node copies the pages it wrote in a region
// into before Replicate, page p at p × the page size.
func (h *Helper) Pending() []byte { return h.pend }

// Replicate has the helper send node buddy's page server the pages of
// ranges ([lo, hi) page indices) from Pending, as version seq, and waits
// until the buddy has them; with full, first every page the node holds,
// from the snapshot (a new buddy). It returns the node that has them: the
// master if the buddy was gone. It must not be called concurrently.
func (h *Helper) Replicate(seq uint64, buddy int, full bool, ranges [][2]int) (int, error) {
	line, err := h.ask(command{Seq: seq, Buddy: buddy, Full: full, Ranges: ranges}, "ask the helper to replicate")
	if err != nil {
		return -1, err
	}
	to := -1
	if _, err := fmt.Sscanf(line, "ok %d", &to); err != nil || to < 0 {
		return -1, fmt.Errorf("pager: helper: %s", line)
	}
	return to, nil
}

// ReplicaPage returns page p of node origin's replica as of version seq,
// which node at keeps (it may be this node): the bytes a node lost after
// its notice replicated before it. It must not be called concurrently
// with Replicate.
func (h *Helper) ReplicaPage(origin, p int, seq uint64, at int) ([]byte, error) {
	line, err := h.ask(command{Op: "page", Seq: seq, Buddy: at, Origin: origin, Page: p}, "ask the helper for a replicated page")
	if err != nil {
		return nil, err
	}
	var size int
	if _, err := fmt.Sscanf(line, "page %d", &size); err != nil || size <= 0 || size > 1<<30 {
		return nil, fmt.Errorf("pager: helper: %s", line)
	}
	page := make([]byte, size)
	if _, err := io.ReadFull(h.rd, page); err != nil {
		return nil, fmt.Errorf("pager: read a replicated page: %w", err)
	}
	return page, nil
}

// DropReplica has the helper drop the replica of node origin's pages it
// keeps, if any (the master has taken them over). It must not be called
// concurrently with Replicate.
func (h *Helper) DropReplica(origin int) error {
	return h.askOK(command{Op: "drop", Origin: origin}, "ask the helper to drop a replica")
}

// SetReplica records that node at keeps rank's replica (-1: none): a
// fetch from rank once its server is gone asks at.
func (h *Helper) SetReplica(rank, at int) { h.state.setReplicaAt(rank, at) }

// BeginUpdate stops the helper's server from serving until SetVersion.
func (h *Helper) BeginUpdate() { h.state.storeVersion(updating) }

// DropTwins asks the helper to write no twin of the pages it installs
// from then on (the node's last region has ended, and the node drops its
// twins: monitor.Lazy.DropTwins), and waits until it has taken it.
func (h *Helper) DropTwins() error {
	return h.askOK(command{Op: "notwins"}, "ask the helper to stop writing twins")
}

// DropSnapshot releases the memory of the snapshot the helper serves the
// node's pages from, once no node will fetch them again (every other
// node's program has ended). The node holds no page for the helper after
// it: a request fails instead of reading the released pages as zeros (the
// server checks the pages it copied are still held after the copy).
func (h *Helper) DropSnapshot() error {
	h.state.dropHeld()
	if len(h.snap) == 0 {
		return nil
	}
	if err := unix.Madvise(h.snap, unix.MADV_REMOVE); err != nil {
		return fmt.Errorf("release the snapshot: madvise: %w", err)
	}
	return nil
}

// SetHeld records whether the node holds page p (its bytes are in the
// snapshot).
func (h *Helper) SetHeld(p int, held bool) { h.state.setHeld(p, held) }

// Readers returns the ranks below 64 that fetched page p from this node,
// a bit each.
func (h *Helper) Readers(p int) uint64 { return h.state.readersOf(p) }

// TakeServed returns the bytes of pages the helper's server sent since
// the last call.
func (h *Helper) TakeServed() int { return int(h.state.takeServed()) }

// Ready waits until the helper is connected to the master's page server,
// and returns why it never will be if so. The node calls it before it
// invalidates its first page.
func (h *Helper) Ready() error {
	<-h.ready
	if h.readyErr != nil {
		return fmt.Errorf("pager: %w", h.readyErr)
	}
	return nil
}

// helperEnv is the node's environment without the launcher's variables,
// which the helper has no use for.
func helperEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CAPE_") {
			env = append(env, kv)
		}
	}
	return env
}

// SetVersion records that the node completed the exchange of region seq:
// its next fetches ask for the pages as of that exchange.
func (h *Helper) SetVersion(seq uint64) { h.state.storeVersion(seq) }

// MarkInvalid records that page p is about to be invalidated.
func (h *Helper) MarkInvalid(p int) { h.state.mark(p) }

// SetHolder records that page p is served by node h (distributed homes);
// the node sets it before it marks the page invalid.
func (h *Helper) SetHolder(p, holder int) { h.state.setHolder(p, holder) }

// Holder returns the node that serves page p, as last set.
func (h *Helper) Holder(p int) int { return h.state.holder(p) }

// Held reports whether the node holds page p (SetHeld).
func (h *Helper) Held(p int) bool { return h.state.isHeld(p) }

// ClearInvalid records that the node installed page p itself.
func (h *Helper) ClearInvalid(p int) { h.state.clear(p) }

// Invalid reports whether page p is invalidated and not yet fetched.
func (h *Helper) Invalid(p int) bool { return h.state.invalid(p) }

// TakeFetched returns the bytes of pages the helper received from the
// master since the last call.
func (h *Helper) TakeFetched() int { return int(h.state.takeFetched()) }

// Done is closed when the helper process has ended; Err then says why.
func (h *Helper) Done() <-chan struct{} { return h.done }

// Err is why the helper ended, once Done is closed.
func (h *Helper) Err() error {
	select {
	case <-h.done:
		return h.err
	default:
		return nil
	}
}

// KeepOwn stores pages [lo, hi) of arena as version seq in the node's own
// replica, which its helper serves from (self replicas, after
// KeepServing; the snapshot and the pending file hold its slots): before
// the node's notice, so that the pages a release names are there if the
// node is lost. It must not be called concurrently.
func (h *Helper) KeepOwn(seq uint64, lo, hi int, arena []byte) {
	ps := h.ps
	for p := lo; p < hi; p++ {
		storeSlot(h.snap, h.pend, h.ownVers, ps, p, seq, arena[p*ps:(p+1)*ps])
	}
}

// OwnPage returns page p of the node's own replica (KeepOwn) as of
// version v, the newest of its two copies at most v, in place (the node
// must not write it), or nil if there is none. KeepOwn overwrites only the
// older copy, so the page returned stays as it is until p is kept again
// at a version above v twice.
func (h *Helper) OwnPage(p int, v uint64) []byte {
	if p < 0 || 2*p+1 >= len(h.ownVers) {
		return nil
	}
	s := newestSlot(h.ownVers, p, v)
	if s < 0 {
		return nil
	}
	return slotPage(h.snap, h.pend, h.ps, p, s)
}

// KeepServing asks a serving helper to keep serving the node's pages, from
// the node's own replica (KeepOwn), if the node ends without Close: a lost
// node's pages stay available while launcher (the node's parent) runs and
// the master's helper is connected.
func (h *Helper) KeepServing(launcher int) error {
	return h.askOK(command{Op: "keep", Launcher: launcher}, "ask the helper to keep serving")
}

// Abandon leaves the helper without the goodbye, as a lost node would:
// a helper told to KeepServing serves on; any other ends at the socket's
// end. The node must not touch an invalidated page afterwards.
func (h *Helper) Abandon() error {
	var errs []error
	h.closeOnce.Do(func() {
		if h.sock != nil {
			errs = append(errs, h.sock.Close())
		}
		errs = append(errs, h.unmap())
	})
	return errors.Join(errs...)
}

// unmap releases the state and the shared files' mappings.
func (h *Helper) unmap() error {
	errs := []error{h.state.unmap()}
	for _, m := range [][]byte{h.snap, h.pend, h.ownVer} {
		if m != nil {
			errs = append(errs, unix.Munmap(m))
		}
	}
	return errors.Join(errs...)
}

// Close ends the helper and releases the state. The node must not touch an
// invalidated page afterwards (the access would wait for ever).
func (h *Helper) Close() error {
	var errs []error
	h.closeOnce.Do(func() {
		if h.sock != nil {
			// The goodbye: the node is not lost, its helper need not
			// serve on. A helper already gone does not read it.
			_ = json.NewEncoder(h.sock).Encode(command{Op: "exit"})
			errs = append(errs, h.sock.Close()) // the helper ends at EOF
		}
		if h.cmd != nil {
			select {
			case <-h.done:
			case <-time.After(2 * time.Second):
				_ = h.cmd.Process.Kill()
				<-h.done
			}
		}
		errs = append(errs, h.unmap())
	})
	return errors.Join(errs...)
}
