//go:build linux

package pager

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cape-go/cape/internal/uffd"
	"github.com/cape-go/cape/transport"
	"golang.org/x/sys/unix"
)

// The helper's inherited descriptors.
const (
	helperSockFD  = 3 // stream socket to the node
	helperUffdFD  = 4 // the node's userfaultfd
	helperTwinFD  = 5 // the node's twin file
	helperStateFD = 6 // the shared state
	helperSnapFD  = 7 // distributed homes: the snapshot of the pages the node holds
	helperPendFD  = 8 // distributed homes: the pages the node wrote, to replicate
	helperOwnVFD  = 9 // distributed homes: the versions of the node's own replica (self replicas)
)

// zeroAhead is how many never-populated pages the helper installs at once
// (the faulting one and those after it), as the kernel's own fault-around
// would: a first touch of a fresh array then costs a round trip to the
// helper per zeroAhead pages, not per page.
const zeroAhead = 32

func init() {
	if os.Getenv(HelperEnv) == "1" {
		os.Exit(runHelper())
	}
}

// helper is the helper process's state.
type helper struct {
	cfg    wireConfig
	npages int
	twin   []byte
	state  *state
	conns  []*transport.Slave // by the rank of the node whose page server it reaches
	zeros  []byte
	msgs   []uffd.Msg
	snap   []byte       // distributed homes: the snapshot (read-only)
	ownVer []byte       // distributed homes: the own replica's versions (read-only)
	ln     net.Listener // distributed homes: the page server's port, until it accepts

	// Distributed homes with replication (replicate_linux.go).
	dec      *json.Decoder // the node's commands, after the set-up
	sock     *os.File      // the node's socket, for the answers to its commands
	pend     []byte        // the pages the node wrote, to replicate (read-only)
	connMu   []sync.Mutex  // by holder: one request and its answer at a time on conns
	dead     []atomic.Bool // by holder: its server is gone
	replMu   sync.Mutex
	replicas map[int]*replica // by origin: the pages other nodes replicated here

	// Self replicas (orphan_linux.go).
	keepServing atomic.Bool  // the node asked to serve its pages after it is gone
	noTwins     atomic.Bool  // the node's regions are over: install writes no twin
	launcher    int          // the process that started the node (its parent)
	bye         atomic.Bool  // the node said goodbye before closing its end
	orphaned    atomic.Bool  // the node is gone: answer from the replica
	clients     atomic.Int32 // helpers connected to this one's server
	masterGone  atomic.Bool  // the master's helper left this one's server
	orphan      sync.Once    // serveOrphan, from whichever sees the node gone first
}

func runHelper() int {
	node := os.Getppid()
	sock := os.NewFile(helperSockFD, "node")
	dec := json.NewDecoder(sock)
	h := &helper{dec: dec, sock: sock}
	go h.watchNode(node)
	if err := dec.Decode(&h.cfg); err != nil {
		fmt.Fprintf(sock, "error: read the configuration: %v\n", err)
		return 1
	}
	if err := h.setUp(sock, dec); err != nil {
		fmt.Fprintf(sock, "error: %v\n", err)
		return 1
	}
	if _, err := fmt.Fprintf(sock, "ok\n"); err != nil {
		return 1
	}
	err := h.loop()
	// The socket's descriptor is polled raw: the File must not be
	// collected (its finalizer would close it) before the loop ends.
	runtime.KeepAlive(sock)
	if h.keepServing.Load() && !h.bye.Load() && (err == nil || parentGone(node, nodeExitGrace)) {
		// The node is gone without its goodbye: lost (its faults, if
		// any, end with it).
		h.orphan.Do(h.serveOrphan)
		return 0
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "cape: node %d: lazy pages: %v\n", h.cfg.Rank, err)
		// The node usually learns from its own connection why the master
		// went away (the job's abort, its end, or the peer timeout) and
		// exits with that reason, which the launcher's report needs: a
		// kill now would make the node look like the job's first loss. Its
		// threads may be waiting for a page that will never come, though,
		// so once that time has passed only a kill ends them. (If the node
		// is gone, the helper has another parent, which it must leave
		// alone.)
		if !parentGone(node, nodeExitGrace) {
			fmt.Fprintf(os.Stderr, "cape: node %d: lazy pages: the node cannot go on without that page: its pager helper kills it (SIGKILL)\n", h.cfg.Rank)
			_ = unix.Kill(node, unix.SIGKILL)
		}
		return 1
	}
	return 0
}

// nodeExitGrace is how long the helper leaves a node whose pages can no
// longer be fetched to exit by itself: longer than the node's own watch of
// a lost master (watchGrace in package cape, 500 ms).
const nodeExitGrace = 2 * time.Second

// parentGone polls, for at most d, whether the process node is no longer
// this process's parent (it exited and the helper was reparented).
func parentGone(node int, d time.Duration) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if os.Getppid() != node {
			return true
		}
	}
	return os.Getppid() != node
}

// setUp maps the shared memory and connects to the page server. To serve
// pages (distributed homes) it first opens its own server's port, tells
// the node ("listening PORT"), and reads the other nodes' servers from dec.
func (h *helper) setUp(sock *os.File, dec *json.Decoder) error {
	c := &h.cfg
	ps := c.PageSize
	if ps <= 0 || c.ArenaSize <= 0 || c.ArenaSize%ps != 0 {
		return fmt.Errorf("arena of %d bytes in %d-byte pages", c.ArenaSize, ps)
	}
	h.npages = c.ArenaSize / ps
	twin, err := unix.Mmap(helperTwinFD, 0, c.ArenaSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_NORESERVE)
	if err != nil {
		return fmt.Errorf("map the twins: %w", err)
	}
	h.twin = twin
	if h.state, err = mapState(helperStateFD, h.npages); err != nil {
		return err
	}
	h.zeros = make([]byte, zeroAhead*ps)
	h.msgs = make([]uffd.Msg, 64)
	if c.Serve {
		port, err := h.listen()
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(sock, "listening %d\n", port); err != nil {
			return err
		}
		if err := dec.Decode(&c.Servers); err != nil {
			return fmt.Errorf("read the page servers: %w", err)
		}
		if len(c.Servers) != c.Size {
			return fmt.Errorf("%d page servers for %d nodes", len(c.Servers), c.Size)
		}
		h.startServer()
	}
	return h.connect()
}

// connect dials the page servers: the master's (lazy transfer), or every
// other node's (distributed homes: the servers Connect sent).
func (h *helper) connect() error {
	c := &h.cfg
	servers := c.Servers
	if len(servers) == 0 {
		servers = []string{c.Master}
	}
	h.conns = make([]*transport.Slave, len(servers))
	h.connMu, h.dead = make([]sync.Mutex, len(servers)), make([]atomic.Bool, len(servers))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for holder, addr := range servers {
		if holder == c.Rank || addr == "" {
			continue
		}
		tc := transport.Config{Token: c.Token, JobID: ServerJobID(c.Job, holder), Size: c.Size, Broadcast: transport.BroadcastStar,
			MaxFrame: max(MaxPages*(8+c.PageSize), ReplFrame), PeerTimeout: c.PeerTimeout}
		if c.PeerTimeout > 0 {
			tc.HandshakeTimeout = transport.JoinTimeout(c.PeerTimeout)
		}
		conn, err := transport.Dial(ctx, addr, ClientID(c.Rank, holder, c.Size), tc)
		if err != nil {
			return fmt.Errorf("connect to node %d's page server %s: %w", holder, addr, err)
		}
		h.conns[holder] = conn
	}
	return nil
}

// loop resolves faults until the node closes the socket.
func (h *helper) loop() error {
	fds := []unix.PollFd{{Fd: helperUffdFD, Events: unix.POLLIN}, {Fd: helperSockFD, Events: unix.POLLIN}}
	for {
		if _, err := unix.Poll(fds, -1); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return fmt.Errorf("poll: %w", err)
		}
		if fds[1].Revents != 0 {
			if done, err := h.readCommand(); done || err != nil {
				return err // nil: the node closed its end
			}
			continue
		}
		if fds[0].Revents&(unix.POLLERR|unix.POLLNVAL) != 0 {
			return errors.New("the userfaultfd failed")
		}
		n, err := uffd.ReadMsgs(helperUffdFD, h.msgs)
		if errors.Is(err, unix.EAGAIN) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read faults: %w", err)
		}
		for _, m := range h.msgs[:n] {
			if m.Event != uffd.EventPagefault {
				continue
			}
			if err := h.resolve(m.Address, m.Flags&uffd.PagefaultFlagWrite != 0); err != nil {
				return err
			}
		}
	}
}

// resolve installs the page holding addr and wakes its threads; write
// says the fault is a write's.
func (h *helper) resolve(addr uint64, write bool) error {
	ps := uint64(h.cfg.PageSize)
	if addr < h.cfg.Base || addr >= h.cfg.Base+uint64(h.cfg.ArenaSize) {
		return fmt.Errorf("fault at %#x, outside the arena", addr)
	}
	p := int((addr - h.cfg.Base) / ps)
	var err error
	if h.state.invalid(p) {
		err = h.fetch(p)
	} else {
		err = h.zeroFill(p, write)
	}
	if err != nil {
		return err
	}
	return uffd.Wake(helperUffdFD, &uffd.Range{Start: h.cfg.Base + uint64(p)*ps, Len: ps})
}

// fetch asks the page's holder (the master, with lazy transfer) for page
// p (and the pages it reads ahead) and installs them; if the holder's
// server is gone (its node was lost), it asks the node keeping the
// holder's replica instead (distributed homes).
func (h *helper) fetch(p int) error {
	v := h.state.loadVersion()
	holder := h.state.holder(p)
	if holder >= len(h.conns) || h.conns[holder] == nil {
		return fmt.Errorf("page %d is held by node %d, whose page server this node has no connection to", p, holder)
	}
	var err error
	if !h.dead[holder].Load() {
		var gone bool
		// Of the pages read ahead, only those this node knows the holder
		// to hold are installed: a lost node's helper answers from its
		// replica, which may keep pages it no longer holds.
		gone, err = h.fetchFrom(holder, transport.Message{Kind: KindPageReq, Seq: v, Payload: AppendRequest(nil, p)}, p, func(q int, content []byte) error {
			if q != p && h.state.holder(q) != holder {
				return nil
			}
			return h.install(q, content)
		})
		if !gone {
			return err
		}
	} else {
		err = fmt.Errorf("fetch page %d from node %d: its page server is gone", p, holder)
	}
	return h.fetchFromReplica(holder, p, v, err)
}

// fetchFrom sends req for page p to node at's server and installs the
// pages of its answer with install; gone reports that the connection
// failed (rather than the server refusing): at is then marked gone.
func (h *helper) fetchFrom(at int, req transport.Message, p int, install func(int, []byte) error) (gone bool, err error) {
	from := "the master"
	if at != 0 {
		from = fmt.Sprintf("node %d", at)
	}
	h.connMu[at].Lock()
	defer h.connMu[at].Unlock()
	conn := h.conns[at]
	if err := conn.Send(req); err != nil {
		h.dead[at].Store(true)
		return true, fmt.Errorf("fetch page %d from %s: %w", p, from, err)
	}
	msg, err := conn.Recv()
	if err != nil {
		h.dead[at].Store(true)
		return true, fmt.Errorf("fetch page %d from %s: %w", p, from, err)
	}
	switch {
	case msg.Kind == KindPageErr:
		return false, fmt.Errorf("%s refused page %d: %s", from, p, msg.Payload)
	case msg.Kind != KindPages || msg.Seq != req.Seq:
		return false, fmt.Errorf("fetch page %d: %s answered kind %d for version %d, want kind %d for %d", p, from, msg.Kind, msg.Seq, KindPages, req.Seq)
	}
	h.state.addFetched(len(msg.Payload))
	return false, ParseAnswer(msg.Payload, p, h.npages, h.cfg.PageSize, install)
}

// install installs fetched page q, write-protected, after its twin and
// its state. The order matters: a thread waiting for the page may resume
// as soon as it is mapped, before resolve wakes it (a signal, such as the
// Go runtime's preemption, ends its wait and it retries the access), and a
// read-ahead page has no waiter at all; the region may then write the
// page and end. The node's tracker skips pages that are not mapped, and
// trusts the twin and the state of those that are, so both must be right
// before the page is mapped.
func (h *helper) install(q int, content []byte) error {
	if !h.state.invalid(q) {
		return nil // read ahead, but the node already has it
	}
	ps := h.cfg.PageSize
	if !h.noTwins.Load() {
		copy(h.twin[q*ps:(q+1)*ps], content)
	}
	h.state.clear(q)
	_, err := copyRetry(h.cfg.Base+uint64(q*ps), content, true)
	if errors.Is(err, unix.EEXIST) {
		return fmt.Errorf("page %d was marked invalid but is present", q)
	}
	if err != nil {
		return fmt.Errorf("install page %d: %w", q, err)
	}
	return nil
}

// zeroFill installs zero pages from p on, up to zeroAhead of them that are
// not invalidated, stopping at the first present one. They are installed
// write-protected, so that the pages the node only reads do not read as
// written, unless write says that the node is writing p: then its next
// pages are likely written too, and a write-protected page would take a
// second fault at each (a page that reads as written and is not only
// costs the node a comparison).
func (h *helper) zeroFill(p int, write bool) error {
	ps := h.cfg.PageSize
	k := 1
	for k < zeroAhead && p+k < h.npages && !h.state.invalid(p+k) {
		k++
	}
	// The pages after p first, p last: the node may go on (and take a
	// release that invalidates the others) as soon as p is mapped (see
	// ParseAnswer).
	if k > 1 {
		n, err := copyRetry(h.cfg.Base+uint64((p+1)*ps), h.zeros[:(k-1)*ps], !write)
		if err != nil && !errors.Is(err, unix.EEXIST) {
			return fmt.Errorf("install zero page %d: %w", p+1, err)
		}
		h.clearTwins(p+1, p+1+n/ps)
	}
	n, err := copyRetry(h.cfg.Base+uint64(p*ps), h.zeros[:ps], !write)
	if err != nil && !errors.Is(err, unix.EEXIST) {
		return fmt.Errorf("install zero page %d: %w", p, err)
	}
	h.clearTwins(p, p+n/ps)
	return nil
}

// clearTwins zeroes the twins of the pages [lo, hi) that are not zero.
// Only the pages the twin file holds data for are read: a hole reads as
// zero, and reading it would fault a page in.
func (h *helper) clearTwins(lo, hi int) {
	if h.noTwins.Load() {
		return
	}
	ps := h.cfg.PageSize
	for q := lo; q < hi; q++ {
		off, err := unix.Seek(helperTwinFD, int64(q*ps), unix.SEEK_DATA)
		switch {
		case errors.Is(err, unix.ENXIO):
			return // holes from q on
		case err == nil:
			q = max(q, int(off)/ps)
		}
		if q >= hi {
			return
		}
		if t := h.twin[q*ps : (q+1)*ps]; !isZero(t) {
			clear(t)
		}
	}
}

// copyRetry installs src at dst, write-protected if wp, without waking
// anyone, retrying while the kernel says the address space is changing.
func copyRetry(dst uint64, src []byte, wp bool) (int, error) {
	mode := uint64(uffd.CopyModeDontWake)
	if wp {
		mode |= uffd.CopyModeWP
	}
	for i := 0; ; i++ {
		n, err := uffd.Copy(helperUffdFD, dst, src, mode)
		if !errors.Is(err, unix.EAGAIN) || i == 100 {
			return n, err
		}
		time.Sleep(time.Millisecond)
	}
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
