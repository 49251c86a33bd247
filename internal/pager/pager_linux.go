//go:build linux

package pager

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
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
}

// wireConfig is what the node sends the helper on its socket.
type wireConfig struct {
	Rank, Size  int
	Job         uint64
	Token       []byte
	Master      string
	Servers     []string
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
	cmd := exec.Command("/proc/self/exe")
	cmd.Env = append(helperEnv(), HelperEnv+"=1")
	cmd.Stderr = os.Stderr
	cmd.ExtraFiles = files
	// No parent-death signal: it follows the thread that started the
	// helper, which may end before the node. The helper ends when the
	// node's end of the socket closes.
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
	w := wireConfig{Rank: cfg.Rank, Size: cfg.Size, Job: cfg.Job, Token: cfg.Token, Master: cfg.Master, Servers: cfg.Servers,
		PeerTimeout: cfg.PeerTimeout, Base: cfg.Base, ArenaSize: cfg.ArenaSize, PageSize: cfg.PageSize}
	if err := json.NewEncoder(h.sock).Encode(&w); err != nil {
		return fmt.Errorf("configure the helper: %w", err)
	}
	go func() {
		defer close(h.ready)
		line, err := bufio.NewReader(h.sock).ReadString('\n')
		if err != nil {
			<-h.done
			h.readyErr = fmt.Errorf("the helper ended before it was ready (%v): %w", h.err, err)
			return
		}
		if line = strings.TrimSpace(line); line != "ok" {
			h.readyErr = fmt.Errorf("helper: %s", strings.TrimPrefix(line, "error: "))
		}
	}()
	return nil
}

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

// Close ends the helper and releases the state. The node must not touch an
// invalidated page afterwards (the access would wait for ever).
func (h *Helper) Close() error {
	var errs []error
	h.closeOnce.Do(func() {
		if h.sock != nil {
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
		errs = append(errs, h.state.unmap())
	})
	return errors.Join(errs...)
}
