package cape

// Nodes that join a running job, the master's side (package roster decides
// the answers; join_node.go is the joining node's side). Once every node
// of its start has joined, a master with a checkpoint log keeps accepting
// on its listener (transport.Master.Admit) and writes the join file
// (package nodeenv). It admits the nodes that asked where the live set may
// change (membership.go): just before a region's merged delta is sent, it
// sends each the live set of the next regions, which names it. Until then
// nothing of the job waits for a joining node: its connection is left out
// of broadcasts and gathers until the start of its first region. A joining
// node lost before then is dropped with a notice; after, it is an ordinary
// slave of the live set (re-execution).

import (
	"fmt"
	"net"
	"os"
	"time"

	"github.com/cape-go/cape/cape/internal/roster"
	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/internal/nodeenv"
	"github.com/cape-go/cape/transport"
)

// maxJoiners bounds the nodes that may join one job over its life: they
// take ranks size..size+maxJoiners-1.
const maxJoiners = 64

// startAdmission makes a checkpointing master admit joining nodes on ln:
// it writes the join file, whose address is ln's.
func (n *node) startAdmission(ln net.Listener) error {
	n.joins = &roster.Joins{}
	if err := n.master.Admit(ln, n.joinerArrived); err != nil {
		return fmt.Errorf("admit joining nodes: %w", err)
	}
	info, err := nodeenv.NewJoinInfo(n.cfg, nodeenv.JoinAddr(ln.Addr(), os.Hostname), maxJoiners)
	if err == nil {
		err = nodeenv.WriteJoin(n.cfg.Checkpoint, info)
	}
	if err != nil {
		// The job runs; it only cannot be joined.
		notice("cape: master: %v: no node can join this job\n", err)
	}
	return nil
}

// joinerArrived is called, from the transport's accepting goroutine, for a
// node that authenticated: it waits for the node's request to be admitted.
func (n *node) joinerArrived(rank int) {
	if n.dur != nil {
		n.dur.JoinerArrived()
	}
	go func() {
		msg, err := n.master.Recv(rank)
		replayed, perr := wire.ParseJoin(msg.Payload)
		if err == nil && (msg.Kind != wire.Join || perr != nil) {
			err = fmt.Errorf("sent message kind %d (%d bytes), want a request to join", msg.Kind, len(msg.Payload))
		}
		if err == nil {
			n.joins.Ask(rank, replayed)
			return
		}
		if !n.closing.Load() {
			notice("cape: master: %s\n", roster.GaveUpText(rank, err))
		}
		_ = n.master.Drop(rank)
	}()
}

// admitJoiners returns the ranks admitted from the region after seq: the
// nodes that asked, each sent the live set next (which names them). A
// node whose send fails is dropped. It is called where the live set may
// change, on the program's goroutine; nothing is admitted while the log
// cannot give a joining node the regions up to seq.
func (n *node) admitJoiners(seq uint64, next []int) []int {
	if n.joins == nil || n.closing.Load() {
		return nil
	}
	asked := n.joins.Take()
	if len(asked) == 0 {
		return nil
	}
	if n.dur != nil {
		n.dur.JoinerDecided() // admitted or refused below
	}
	s := roster.LogState{Logging: n.dur != nil, Lazy: n.lazyM != nil}
	if n.dur != nil {
		s.Refusal = n.dur.JoinRefusal()
	}
	ans := roster.AnswerRequests(asked, next, s)
	if ans.Refusal != "" {
		for _, req := range asked {
			notice("cape: master: %s\n", roster.RefusedText(req.Rank, ans.Refusal))
			go func() {
				_ = n.master.Send(req.Rank, transport.Message{Kind: wire.Leave, Seq: seq, Payload: []byte(ans.Refusal)})
				_ = n.master.Drop(req.Rank)
			}()
		}
		return nil
	}
	live := wire.LivePayload(ans.Live)
	var admitted []int
	for _, req := range asked {
		if err := n.master.Send(req.Rank, transport.Message{Kind: wire.Live, Seq: seq, Payload: live}); err != nil {
			notice("cape: master: %s\n", roster.LostAdmittedText(req.Rank, err))
			_ = n.master.Drop(req.Rank)
			continue
		}
		notice("cape: master: %s\n", req.JoinedText(time.Now(), seq))
		admitted = append(admitted, req.Rank)
	}
	return admitted
}

// includeJoined makes the nodes admitted after the last region part of
// the transport's broadcasts and gathers: their first region begins.
func (n *node) includeJoined() {
	if n.joins == nil {
		return
	}
	for _, rank := range n.joins.Include() {
		_ = n.master.Include(rank)
	}
}

// endAdmission drops the joining nodes not admitted yet and removes the
// join file (master, at the end of the job).
func (n *node) endAdmission() {
	if n.joins == nil {
		return
	}
	nodeenv.RemoveJoin(n.cfg.Checkpoint)
	asked := n.joins.Take()
	if n.dur != nil {
		n.dur.JoinerDecided() // the nodes that asked are dropped
	}
	for _, req := range asked {
		_ = n.master.Drop(req.Rank)
	}
}
