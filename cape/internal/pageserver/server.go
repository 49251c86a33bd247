// Package pageserver owns a node's page server under distributed homes
// (--transfer homes, docs/homes.md): the snapshot of the pages the node
// holds as of the last region end, served to the other nodes' pager
// helpers (package pager) when they first touch one. It holds no pointer
// into the runtime and never prints; its caller (package cape) tells it
// at each release which pages it now holds (Update).
//
// Every node runs one. A helper connects to every other node's server at
// set-up, under pager.ClientID, with the job id pager.ServerJobID of the
// server's rank. A request carries the version its node is at; a server
// that has not yet taken that region's release waits for it (its node may
// still be receiving it), and one past it refuses the request: nodes move
// to the next version together, at the release of the region after, which
// needs the asking node's notice.
package pageserver

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/cape-go/cape/cape/internal/homes"
	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/internal/pager"
	"github.com/cape-go/cape/transport"
)

// Config describes the node and the job to New.
type Config struct {
	Rank, Size int
	Job        uint64
	Token      []byte
	// PeerTimeout times the helpers' connections as the job's own (0:
	// the transport's default).
	PeerTimeout time.Duration
	Listener    net.Listener // the server's port; the Server owns it
	PageSize    int
	Pages       int // pages of the arena
}

// Server is a node's page server. Its methods are safe for concurrent use.
type Server struct {
	cfg Config
	wg  sync.WaitGroup

	mu      sync.Mutex
	moved   *sync.Cond // signalled when version changes or the server closes
	pm      *transport.Master
	err     error // why the helpers could not connect
	closed  bool
	version uint64
	snap    map[int][]byte // the pages this node holds, as of version
	spare   [][]byte       // page buffers not in use
	next    []int          // by client rank: the page after the last one served
	ahead   []int          // by client rank: how many pages the last answer held
	served  int            // bytes of pages served since the last Take
	// site: by page held, the region whose end gave it its version;
	// learned: by region, by page, the nodes that fetched the page after
	// that region's end (sorted), to whom it is pushed after the region's
	// next instances (Pushes).
	site    map[int]string
	learned map[string]map[int][]int
}

// New starts the server: it accepts the other nodes' helpers in the
// background and serves them.
func New(c Config) *Server {
	s := &Server{cfg: c, snap: map[int][]byte{}, next: make([]int, c.Size), ahead: make([]int, c.Size),
		site: map[int]string{}, learned: map[string]map[int][]int{}}
	s.moved = sync.NewCond(&s.mu)
	tcfg := transport.Config{Token: c.Token, JobID: pager.ServerJobID(c.Job, c.Rank), Size: c.Size,
		Broadcast: transport.BroadcastStar, MaxFrame: 1 << 20, PeerTimeout: c.PeerTimeout}
	if d := c.PeerTimeout; d > 0 {
		tcfg.HandshakeTimeout = 3 * d
	}
	s.wg.Add(1)
	go s.accept(tcfg)
	return s
}

// accept waits for the other nodes' helpers, then serves each.
func (s *Server) accept(tcfg transport.Config) {
	defer s.wg.Done()
	pm, err := transport.NewMaster(s.cfg.Listener, tcfg)
	_ = s.cfg.Listener.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		if pm != nil {
			_ = pm.Close()
		}
		return
	}
	if err != nil {
		s.err = fmt.Errorf("wait for the other nodes' page helpers: %w", err)
		return
	}
	s.pm = pm
	for id := 1; id < s.cfg.Size; id++ {
		s.wg.Add(1)
		go s.serve(id)
	}
}

// Err returns why the helpers could not connect, if they could not.
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// serve answers the requests of the helper connected under id until its
// connection ends. A refused request is answered with the reason: the
// helper stops its node, naming this one.
func (s *Server) serve(id int) {
	defer s.wg.Done()
	rank := pager.ClientRank(id, s.cfg.Rank, s.cfg.Size)
	for {
		msg, err := s.pm.Recv(id)
		if err != nil {
			return
		}
		out, err := s.answer(rank, msg)
		reply := transport.Message{Kind: pager.KindPages, Seq: msg.Seq, Payload: out}
		if err != nil {
			reply = transport.Message{Kind: pager.KindPageErr, Seq: msg.Seq, Payload: []byte(err.Error())}
		}
		if err := s.pm.Send(id, reply); err != nil {
			return
		}
	}
}

// answer returns the pages for a request of rank's helper: the page asked
// for and, where rank reads this node's pages in order (it asks for the
// page after the last one served), the held pages after it, twice as many
// as last time, up to pager.MaxPages (a halo of a few pages costs few
// extra pages; a stream of pages gets them 32 at a time).
func (s *Server) answer(rank int, msg transport.Message) ([]byte, error) {
	if msg.Kind != pager.KindPageReq {
		return nil, fmt.Errorf("message kind %d, want a page request", msg.Kind)
	}
	p, err := pager.ParseRequest(msg.Payload, s.cfg.Pages)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.version < msg.Seq && !s.closed {
		s.moved.Wait()
	}
	switch {
	case s.closed:
		return nil, errors.New("the node's page server is closing")
	case s.version != msg.Seq:
		return nil, fmt.Errorf("node %d asked node %d for page %d as of region #%d; it is at #%d", rank, s.cfg.Rank, p, msg.Seq, s.version)
	}
	if _, ok := s.snap[p]; !ok {
		return nil, fmt.Errorf("node %d asked node %d for page %d as of region #%d, which it does not hold", rank, s.cfg.Rank, p, msg.Seq)
	}
	s.learn(rank, p)
	want := 1
	if p == s.next[rank] {
		want = max(1, min(2*s.ahead[rank], pager.MaxPages))
	}
	out := make([]byte, 0, want*(8+s.cfg.PageSize))
	q := p
	for ; q < p+want; q++ {
		page, ok := s.snap[q]
		if !ok {
			break
		}
		out = pager.AppendPage(out, q, page)
	}
	s.next[rank], s.ahead[rank] = q, q-p
	s.served += len(out)
	return out, nil
}

// learn records that rank fetched page p (not the pages read ahead with
// it, which it may never read).
func (s *Server) learn(rank, p int) {
	site := s.site[p]
	l := s.learned[site]
	if l == nil {
		l = map[int][]int{}
		s.learned[site] = l
	}
	if i, ok := slices.BinarySearch(l[p], rank); !ok {
		l[p] = slices.Insert(l[p], i, rank)
	}
}

// Pushes appends to out, in ascending pages, the pages written (this
// node's writes in an instance of region site) that other nodes fetched
// after an earlier instance, with those nodes and the page's bytes (from
// arena, the node's memory at the region's end, aliased).
func (s *Server) Pushes(site string, written []wire.PageRange, arena []byte, out []wire.Push) []wire.Push {
	ps := s.cfg.PageSize
	s.mu.Lock()
	defer s.mu.Unlock()
	base := len(out)
	for p, readers := range s.learned[site] {
		if homes.Contains(written, p) {
			out = append(out, wire.Push{Page: p, Readers: readers, Data: arena[p*ps : (p+1)*ps]})
		}
	}
	slices.SortFunc(out[base:], func(a, b wire.Push) int { return a.Page - b.Page })
	return out
}

// Update takes the release of region seq, an instance of site: of the
// pages homes name, it keeps a copy of those this node now holds (from
// arena, the node's memory after the release was applied) and drops the
// others; then it serves version seq.
func (s *Server) Update(seq uint64, site string, homes []wire.Home, arena []byte) {
	ps := s.cfg.PageSize
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range homes {
		for p := h.Lo; p < h.Hi; p++ {
			page, ok := s.snap[p]
			if h.Holder != s.cfg.Rank {
				if ok {
					s.spare = append(s.spare, page)
					delete(s.snap, p)
					delete(s.site, p)
				}
				continue
			}
			s.site[p] = site
			if !ok {
				page = s.page()
				s.snap[p] = page
			}
			copy(page, arena[p*ps:(p+1)*ps])
		}
	}
	s.version = seq
	s.moved.Broadcast()
}

// page returns a page buffer, a spare one if any.
func (s *Server) page() []byte {
	if k := len(s.spare); k > 0 {
		b := s.spare[k-1]
		s.spare = s.spare[:k-1]
		return b
	}
	return make([]byte, s.cfg.PageSize)
}

// Held returns the number of pages the server holds.
func (s *Server) Held() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.snap)
}

// TakeServed returns the bytes of pages served since the last call.
func (s *Server) TakeServed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.served
	s.served = 0
	return n
}

// Close stops the server once the other nodes are done (Finalize).
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	pm := s.pm
	s.moved.Broadcast()
	s.mu.Unlock()
	err := s.cfg.Listener.Close()
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	if pm != nil {
		err = errors.Join(pm.Close(), err)
	}
	s.wg.Wait()
	return err
}
