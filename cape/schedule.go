package cape

import (
	"errors"
	"fmt"
	"sync"

	"github.com/cape-go/cape/transport"
)

// chunkServer hands out the chunks of a dynamic or guided loop on the
// master: one goroutine per slave answers its chunk requests until the slave
// sends its delta, which the server keeps for Exchange.
type chunkServer struct {
	count, chunk, nodes int
	guided              bool

	mu sync.Mutex
	// mu protects the following field.
	nextLo int

	wg   sync.WaitGroup
	msgs []transport.Message // per rank, the slave's delta message
	errs []error             // per rank
}

func (s *chunkServer) next() (lo, hi int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lo = s.nextLo
	if lo >= s.count {
		return s.count, s.count
	}
	size := s.chunk
	if s.guided {
		size = max(s.chunk, (s.count-lo+s.nodes-1)/s.nodes)
	}
	hi = min(lo+size, s.count)
	s.nextLo = hi
	return lo, hi
}

func (r *Region) serveChunks(count int, sched Schedule, chunk int) {
	n := r.n
	if r.dyn != nil {
		fail(r.errorf("more than one dynamically scheduled construct in one region"))
	}
	s := &chunkServer{count: count, chunk: chunk, nodes: n.size, guided: sched == Guided,
		msgs: make([]transport.Message, n.size), errs: make([]error, n.size)}
	r.dyn = s
	for rank := 1; rank < n.size; rank++ {
		s.wg.Go(func() {
			for {
				msg, err := n.master.Recv(rank)
				if err != nil {
					s.errs[rank] = err
					return
				}
				if err := fromSlave(msg, rank, r.seq, true); err != nil {
					s.errs[rank] = err
					return
				}
				if msg.Kind == kindDelta {
					s.msgs[rank] = msg
					return
				}
				lo, hi := s.next()
				if err := n.master.Send(rank, transport.Message{Kind: kindChunk, Seq: r.seq, Payload: chunkPayload(lo, hi)}); err != nil {
					s.errs[rank] = err
					return
				}
			}
		})
	}
}

func (s *chunkServer) wait() ([]transport.Message, error) {
	s.wg.Wait()
	if err := errors.Join(s.errs...); err != nil {
		return nil, fmt.Errorf("dynamic schedule: %w", err)
	}
	return s.msgs, nil
}

func (r *Region) requestChunk(count int) (lo, hi int, err error) {
	if err := r.n.slave.Send(transport.Message{Kind: kindChunkReq, Seq: r.seq}); err != nil {
		return 0, 0, err
	}
	msg, err := r.recvFromMaster(kindChunk)
	if err != nil {
		return 0, 0, err
	}
	return parseChunk(msg.Payload, count)
}
