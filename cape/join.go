package cape

// Nodes that join a running job (seed 003's dynamic provisioning), the
// master's side. A job with a checkpoint log admits joining nodes: once
// every node of its start has joined, the master keeps accepting on its
// listener (transport.Master.Admit) and writes the join file (package
// nodeenv) into the checkpoint directory, with its address, the job's
// token and the program's hash.
//
// A joining node (join_node.go) replays the log as a restart does, then
// asks to be admitted (kind join) with the number of regions it replayed.
// The master admits it where the live set may change (membership.go): just
// before a region's merged delta is sent, it sends the joining node alone
// the live set of the next regions, which names it, and the others the same
// set. The node reads the regions up to that one from the log, as their
// records appear, and takes a share of the next region like any slave. In
// the meantime nothing of the job waits for it: its connection is left out
// of broadcasts and gathers until the master includes it, at the start of
// its first region. A joining node lost before then is dropped with a
// notice; after, it is an ordinary slave of the live set (re-execution).

import (
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"github.com/cape-go/cape/cape/internal/roster"
	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/internal/nodeenv"
	"github.com/cape-go/cape/transport"
)

// maxJoiners bounds the nodes that may join one job over its life: they
// take ranks size..size+maxJoiners-1.
const maxJoiners = 64

// joins is the master's account of the nodes joining the job.
type joins struct {
	mu sync.Mutex
	// mu protects the following field.
	asked roster.Joins // the nodes that asked to be admitted

	// Used from the program's goroutine.
	include []int // admitted: to include in the transport at the next region
	dir     string
}

// startAdmission makes a checkpointing master admit joining nodes on ln:
// it writes the join file, whose address is ln's.
func (n *node) startAdmission(ln net.Listener) error {
	n.joins = &joins{dir: n.cfg.Checkpoint}
	if err := n.master.Admit(ln, n.joinerArrived); err != nil {
		return fmt.Errorf("admit joining nodes: %w", err)
	}
	info, err := nodeenv.NewJoinInfo(n.cfg, joinAddr(ln.Addr()), maxJoiners)
	if err == nil {
		err = nodeenv.WriteJoin(n.joins.dir, info)
	}
	if err != nil {
		// The job runs; it only cannot be joined.
		notice("cape: master: %v: no node can join this job\n", err)
	}
	return nil
}

// joinAddr is the address a joining node dials: the listener's, with the
// host's name when it listens on every interface.
func joinAddr(a net.Addr) string {
	ta, ok := a.(*net.TCPAddr)
	if !ok || !ta.IP.IsUnspecified() {
		return a.String()
	}
	host, err := os.Hostname()
	if err != nil {
		host = "localhost"
	}
	return net.JoinHostPort(host, fmt.Sprint(ta.Port))
}

// joinerArrived is called, from the transport's accepting goroutine, for a
// node that authenticated: it waits for the node's request to be admitted.
func (n *node) joinerArrived(rank int) {
	if n.dur != nil {
		n.dur.JoinerArrived()
	}
	go func() {
		msg, err := n.master.Recv(rank)
		if _, perr := wire.ParseJoin(msg.Payload); err == nil && (msg.Kind != kindJoin || perr != nil) {
			err = fmt.Errorf("sent message kind %d (%d bytes), want a request to join", msg.Kind, len(msg.Payload))
		}
		if err != nil {
			if !n.closing.Load() {
				notice("cape: master: %s\n", roster.GaveUpText(rank, err))
			}
			_ = n.master.Drop(rank)
			return
		}
		j := n.joins
		j.mu.Lock()
		j.asked.Ask(rank, binary.LittleEndian.Uint64(msg.Payload))
		j.mu.Unlock()
	}()
}

// admitJoiners returns the ranks admitted from the region after seq: the
// nodes that asked, each sent the live set next (which names them). A
// node whose send fails is dropped. It is called where the live set may
// change, on the program's goroutine; nothing is admitted while the log
// cannot give a joining node the regions up to seq.
func (n *node) admitJoiners(seq uint64, next []int) []int {
	j := n.joins
	if j == nil || n.closing.Load() {
		return nil
	}
	j.mu.Lock()
	if !j.asked.Waiting() {
		j.mu.Unlock()
		return nil
	}
	asked := j.asked.Take()
	j.mu.Unlock()
	if n.dur != nil {
		n.dur.JoinerDecided() // admitted or refused below
	}
	ans := roster.AnswerRequests(asked, next, n.logState())
	if ans.Refusal != "" {
		for _, req := range asked {
			notice("cape: master: %s\n", roster.RefusedText(req.Rank, ans.Refusal))
			go func() {
				_ = n.master.Send(req.Rank, transport.Message{Kind: kindLeave, Seq: seq, Payload: []byte(ans.Refusal)})
				_ = n.master.Drop(req.Rank)
			}()
		}
		return nil
	}
	live := livePayload(ans.Live)
	var admitted []int
	for _, req := range asked {
		msg := transport.Message{Kind: kindLive, Seq: seq, Payload: live}
		if err := n.master.Send(req.Rank, msg); err != nil {
			notice("cape: master: %s\n", roster.LostAdmittedText(req.Rank, err))
			_ = n.master.Drop(req.Rank)
			continue
		}
		notice("cape: master: %s\n", req.JoinedText(time.Now(), seq))
		admitted = append(admitted, req.Rank)
	}
	return admitted
}

// logState is what the master's log can give a joining node now.
func (n *node) logState() roster.LogState {
	s := roster.LogState{Logging: n.dur != nil, Lazy: n.lazyM != nil}
	if n.dur != nil {
		s.Refusal = n.dur.JoinRefusal()
	}
	return s
}

// grow makes room for the ranks of admitted nodes (master): the job's size
// becomes one more than the largest rank.
func (n *node) growFor(ranks []int) {
	for _, rank := range ranks {
		n.size = max(n.size, rank+1)
	}
	n.lossMu.Lock()
	n.members.Grow(n.size)
	n.lossMu.Unlock()
	n.joins.include = append(n.joins.include, ranks...)
}

// includeJoined makes the nodes admitted after the last region part of
// the transport's broadcasts and gathers: their first region begins.
func (n *node) includeJoined() {
	if n.joins == nil || len(n.joins.include) == 0 {
		return
	}
	for _, rank := range n.joins.include {
		_ = n.master.Include(rank)
	}
	n.joins.include = n.joins.include[:0]
}

// endAdmission drops the joining nodes not admitted yet and removes the
// join file (master, at the end of the job).
func (n *node) endAdmission() {
	j := n.joins
	if j == nil {
		return
	}
	nodeenv.RemoveJoin(j.dir)
	j.mu.Lock()
	asked := j.asked.Take()
	j.mu.Unlock()
	if n.dur != nil {
		n.dur.JoinerDecided() // admitted or refused below
	}
	for _, req := range asked {
		_ = n.master.Drop(req.Rank)
	}
}
