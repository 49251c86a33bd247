package lazy

import (
	"errors"
	"net"
	"sync"
	"time"

	"github.com/cape-go/cape/internal/pager"
	"github.com/cape-go/cape/monitor"
	"github.com/cape-go/cape/transport"
)

// Master is the master's side of lazy transfer: what each slave lacks,
// what it fetched, the snapshot of the pages slaves lack, and the page
// server. It is safe for concurrent use by the page server's goroutines
// and one region's goroutine (Exchange); Close ends it.
type Master struct {
	arena  []byte // the job's arena, which the master's exchange injects into
	ln     net.Listener
	ps     int
	npages int
	wg     sync.WaitGroup

	mu sync.Mutex
	// mu protects the following fields.
	pm        *transport.Master    // the helpers' connections, once all are in (accept)
	acceptErr error                // why they are not
	closed    bool                 // Close was called
	version   uint64               // the last exchange: pages are served as of its end
	snap      map[int][]byte       // every page some slave lacks, as of that exchange
	lacks     []map[int]string     // by rank: the pages the slave invalidated and did not fetch, and the region whose notice invalidated each
	nlack     map[int]int          // by page: how many slaves lack it
	learned   map[string][]pageSet // by region name, by rank: pages the slave fetched after that region's notice
	served    []int                // by rank: bytes of pages served since the last exchange
	next      []int                // by rank: the page after the last one served (a streaming reader asks for it next)

	// watch, if not nil, is the master's tracker, which tells the pages
	// written between regions: a snapshot refreshes only the pages that
	// may have changed since the last one. starts is its Starts at the
	// last snapshot, or -1.
	watch  monitor.Watcher
	starts int
	// Scratch space of Exchange, reused from one region to the next.
	changedBuf, pagesBuf []int
	writer               map[int]int
	// copied, compared: pages the last snapshot copied (changed or new),
	// and compared without copying, for Report; visited: the lacked pages
	// it looked at.
	copied, compared, visited int
	// unsnapped: the pages lacked since the last snapshot (some may have
	// one, or be lacked no more); topLack: the highest page ever lacked.
	// candBuf: snapshot's scratch space.
	// snapTop: topLack at the last snapshot.
	unsnapped, candBuf []int
	topLack, snapTop   int
	// spare: pages of snapshot storage not in use, taken from slabs that
	// are populated in one call each (see reservePages).
	spare [][]byte
	// out is Exchange's state for each slave, by rank, reused from one
	// region to the next.
	out []slaveOut
}

// pageSet is a set of page indices.
type pageSet map[int]struct{}

// MasterConfig describes the job to a new Master.
type MasterConfig struct {
	Arena    []byte // the arena, at its full size
	PageSize int
	Size     int // nodes of the job
	// Tracker is the master's tracker: where it is a monitor.Watcher, a
	// snapshot looks only at the pages that may have changed.
	Tracker monitor.Tracker
	// Listener is the page server's share of the master's port; the
	// Master owns it.
	Listener net.Listener
	// Job, Token and PeerTimeout authenticate the helpers and time their
	// connections as the job's own (PeerTimeout 0: the transport's
	// default).
	Job         uint64
	Token       []byte
	PeerTimeout time.Duration
}

// NewMaster returns the master's side of lazy transfer and starts its page
// server, which accepts the slaves' helpers in the background: nothing
// waits for them, since a helper is needed only once its node has
// invalidated a page, and a helper that cannot connect stops its node.
func NewMaster(c MasterConfig) *Master {
	m := newMaster(c.Arena, c.PageSize, c.Size)
	m.ln = c.Listener
	if w, ok := c.Tracker.(monitor.Watcher); ok {
		w.WatchBetween()
		m.watch = w
	}
	tcfg := transport.Config{Token: c.Token, JobID: pager.JobID(c.Job), Size: c.Size,
		Broadcast: transport.BroadcastStar, MaxFrame: 1 << 20, PeerTimeout: c.PeerTimeout}
	if d := c.PeerTimeout; d > 0 {
		tcfg.HandshakeTimeout = transport.JoinTimeout(d)
	}
	m.wg.Add(1)
	go m.accept(tcfg, c.Size)
	return m
}

// newMaster returns a Master's bookkeeping for size nodes over arena,
// without a page server.
func newMaster(arena []byte, ps, size int) *Master {
	m := &Master{arena: arena, ps: ps, npages: len(arena) / ps, snap: map[int][]byte{}, nlack: map[int]int{},
		lacks: make([]map[int]string, size), learned: map[string][]pageSet{}, served: make([]int, size),
		next: make([]int, size), starts: -1, writer: map[int]int{}}
	for rank := range m.lacks {
		m.lacks[rank] = map[int]string{}
	}
	return m
}

// Close stops the page server once the slaves are done (Finalize).
func (m *Master) Close() error {
	m.mu.Lock()
	m.closed = true
	pm := m.pm
	m.mu.Unlock()
	if m.ln == nil {
		return nil
	}
	err := m.ln.Close() // ends an accept still waiting
	if errors.Is(err, net.ErrClosed) {
		err = nil // accept closed it
	}
	if pm != nil {
		err = errors.Join(pm.Close(), err)
	}
	m.wg.Wait()
	return err
}

// Sent returns the size of the payload Exchange last sent to slave rank
// (0 if it sent none).
func (m *Master) Sent(rank int) int {
	if rank >= len(m.out) {
		return 0
	}
	return m.out[rank].size
}
