package stdio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/transport"
)

// Peers is the master's end of the input's connections (a
// *transport.Master): Send to a slave, Recv its acknowledgements, Drop a
// slave's connection, Close them all.
type Peers interface {
	Send(rank int, msg transport.Message) error
	Recv(rank int) (transport.Message, error)
	Drop(rank int) error
	Close() error
}

// Share is the master's side of the input stream: it owns the chunks of
// the real input read and not yet taken by every consumer (this node's
// program and each slave still streamed to) and each consumer's progress.
// It is safe for concurrent use; its goroutines are readFrom, feed, and
// send and acks for each slave.
//
// Memory is bounded by the window: the reader stops while it is window
// bytes ahead of the slowest consumer's acknowledged position (this
// node's program: the bytes written to its pipe; a slave: the bytes it
// acknowledged having written to its program's pipe), so the chunks held
// here, and the bytes queued on each slave, never exceed window plus one
// chunk. A chunk is released once every consumer has taken it. A slave
// that ended, failed or was declared lost is gone: it holds nothing back.
type Share struct {
	window int64
	pm     Peers
	// fail reports that the real input could not be read: the job must
	// end, since no program may take that for the end of its input.
	fail func(error)
	// peerErr reports a slave's stream that failed other than by the
	// slave's or this side's orderly close (the slave ended, the job
	// ends), naming the slave; the slave is already gone from the stream.
	peerErr func(rank int, err error)
	// pipe is the write end of the master's program's input, held for the
	// share's life (see Queue.pipe: the collector would close it).
	pipe io.WriteCloser

	mu   sync.Mutex // protects the following fields
	cond *sync.Cond
	// chunks[i] is chunk base+i of the input; the chunks before base
	// were taken by every consumer and released.
	chunks     [][]byte
	base       int
	read       int64 // bytes read from the real input
	end        bool  // the real input reached its end (EOF)
	failed     bool  // reading the real input failed
	fed        int64 // bytes written to this node's program
	feedNext   int   // the next chunk for this node's program
	peers      []*peer
	held, peak int64 // bytes in chunks, and their most (for tests)
}

// peer is one slave's progress in the stream.
type peer struct {
	rank  int
	next  int   // the next chunk to send
	sent  int64 // bytes sent
	acked int64 // bytes the slave acknowledged (fed to its program)
	gone  bool  // ended, failed or lost: it holds nothing back
}

// StartShare starts the master's side for the slaves 1..size-1 on pm:
// it makes a pipe this process's standard input, reads the real input,
// feeds this node's program through the pipe and streams the input to
// every slave. fail and peerErr are as in NewShare. On an error pm is
// closed.
func StartShare(pm Peers, size int, fail func(error), peerErr func(rank int, err error)) (*Share, error) {
	src, w, err := PipeStdin()
	if err != nil {
		pm.Close()
		return nil, err
	}
	ranks := make([]int, 0, size-1)
	for rank := 1; rank < size; rank++ {
		ranks = append(ranks, rank)
	}
	s := NewShare(pm, ranks, Window, fail, peerErr)
	s.Start(src, w)
	return s, nil
}

// NewShare returns the master's side for the slaves of the given ranks,
// holding at most window bytes ahead of the slowest consumer. fail is
// called once if the real input cannot be read; peerErr whenever a
// slave's stream fails (see Share). Start starts it.
func NewShare(pm Peers, ranks []int, window int64, fail func(error), peerErr func(rank int, err error)) *Share {
	s := &Share{window: window, pm: pm, fail: fail, peerErr: peerErr}
	s.cond = sync.NewCond(&s.mu)
	for _, r := range ranks {
		s.peers = append(s.peers, &peer{rank: r})
	}
	return s
}

// Start reads src, feeds this node's program through w and streams the
// input to every slave.
func (s *Share) Start(src io.ReadCloser, w io.WriteCloser) {
	s.pipe = w
	go s.readFrom(src)
	go s.feed(w)
	for _, p := range s.peers {
		go s.send(p)
		go s.acks(p)
	}
}

// Drop takes a slave the job declared lost out of the stream, so that it
// holds back no one, and drops its connection (a straggler that wakes
// sees the master's orderly close, not an end of input).
func (s *Share) Drop(rank int) {
	s.mu.Lock()
	for _, p := range s.peers {
		if p.rank == rank {
			p.gone = true
		}
	}
	s.release()
	s.cond.Broadcast()
	s.mu.Unlock()
	_ = s.pm.Drop(rank)
}

// Close closes the input's connections (the end of the job): the slaves
// see the master's orderly close.
func (s *Share) Close() error { return s.pm.Close() }

// low is the slowest consumer's position in bytes. s.mu must be held.
func (s *Share) low() int64 {
	low := s.fed
	for _, p := range s.peers {
		if !p.gone {
			low = min(low, p.acked)
		}
	}
	return low
}

// release drops the chunks every consumer has taken. s.mu must be held.
func (s *Share) release() {
	low := s.feedNext
	for _, p := range s.peers {
		if !p.gone {
			low = min(low, p.next)
		}
	}
	for s.base < low {
		s.held -= int64(len(s.chunks[0]))
		s.chunks[0] = nil
		s.chunks = s.chunks[1:]
		s.base++
	}
}

// readFrom reads the real input into chunks, staying at most window
// bytes ahead of the slowest consumer. A read error ends the job: the
// programs must not take it for the end of their input.
func (s *Share) readFrom(src io.ReadCloser) {
	defer src.Close()
	for {
		s.mu.Lock()
		for s.read-s.low() >= s.window {
			s.cond.Wait()
		}
		s.mu.Unlock()
		buf := make([]byte, Chunk)
		k, err := src.Read(buf)
		s.mu.Lock()
		if k > 0 {
			s.chunks = append(s.chunks, buf[:k])
			s.read += int64(k)
			s.held += int64(k)
			s.peak = max(s.peak, s.held)
		}
		switch {
		case errors.Is(err, io.EOF):
			s.end = true
		case err != nil:
			s.failed = true
		}
		s.cond.Broadcast()
		s.mu.Unlock()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.fail(fmt.Errorf("standard input: read after %d bytes: %w", s.read, err))
			}
			return
		}
	}
}

// chunk waits for chunk i: it returns it, or ok false at the end of the
// input (total is then its size), or stop true when the input failed or
// gone says the consumer is gone. s.mu must be held.
func (s *Share) chunk(i int, gone func() bool) (b []byte, total int64, ok, stop bool) {
	for i >= s.base+len(s.chunks) && !s.end && !s.failed && !gone() {
		s.cond.Wait()
	}
	switch {
	case s.failed || gone():
		return nil, 0, false, true
	case i < s.base+len(s.chunks):
		return s.chunks[i-s.base], 0, true, false
	}
	return nil, s.read, false, false
}

// feed writes the input to this node's program through its pipe, and
// closes the pipe at the end of the input, never after a read error. A
// program that closed its standard input stops the feed: the chunks it
// did not take stay, and the reader stops a window ahead of it.
func (s *Share) feed(w io.WriteCloser) {
	never := func() bool { return false }
	for {
		s.mu.Lock()
		b, _, ok, stop := s.chunk(s.feedNext, never)
		s.mu.Unlock()
		if stop {
			return // the job fails: no end of input
		}
		if !ok {
			w.Close()
			return
		}
		if _, err := w.Write(b); err != nil {
			w.Close()
			return
		}
		s.mu.Lock()
		s.feedNext++
		s.fed += int64(len(b))
		s.release()
		s.cond.Broadcast()
		s.mu.Unlock()
	}
}

// send streams the input to one slave: each chunk with its offset in
// Seq, then the end with the input's size, so that the slave can tell
// the end from a cut.
func (s *Share) send(p *peer) {
	gone := func() bool { return p.gone }
	for {
		s.mu.Lock()
		b, total, ok, stop := s.chunk(p.next, gone)
		off := p.sent
		if ok {
			// Counted as sent before it is: its acknowledgement may come
			// back before Send returns. The chunk may then be released
			// while b is being sent; b stays valid.
			p.next++
			p.sent += int64(len(b))
			s.release()
		}
		s.mu.Unlock()
		if stop {
			return
		}
		if !ok {
			if err := s.pm.Send(p.rank, transport.Message{Kind: KindEnd, Seq: uint64(total), Payload: wire.U64Payload(uint64(total))}); err != nil {
				s.peerFailed(p, err)
			}
			return
		}
		if err := s.pm.Send(p.rank, transport.Message{Kind: KindData, Seq: uint64(off), Payload: b}); err != nil {
			s.peerFailed(p, err)
			return
		}
	}
}

// acks receives one slave's acknowledgements until its connection ends.
func (s *Share) acks(p *peer) {
	for {
		msg, err := s.pm.Recv(p.rank)
		if err == nil {
			err = s.ack(p, msg)
		}
		if err != nil {
			s.peerFailed(p, err)
			return
		}
	}
}

// ack takes one acknowledgement: the bytes the slave has fed its program
// so far, which never decrease nor exceed the bytes sent.
func (s *Share) ack(p *peer, msg transport.Message) error {
	if msg.Kind != KindAck || len(msg.Payload) != 8 {
		return fmt.Errorf("%w: message kind %d of %d bytes, want an acknowledgement", ErrProtocol, msg.Kind, len(msg.Payload))
	}
	v := int64(binary.LittleEndian.Uint64(msg.Payload))
	s.mu.Lock()
	defer s.mu.Unlock()
	if v < p.acked || v > p.sent {
		return fmt.Errorf("%w: acknowledged %d bytes after %d, of %d sent", ErrProtocol, v, p.acked, p.sent)
	}
	p.acked = v
	s.cond.Broadcast()
	return nil
}

// peerFailed takes a slave out of the stream once its connection ended,
// and reports the failure unless the slave or this side closed it in
// order (the slave's program ended; the job ends).
func (s *Share) peerFailed(p *peer, err error) {
	s.mu.Lock()
	was := p.gone
	p.gone = true
	s.release()
	s.cond.Broadcast()
	s.mu.Unlock()
	if was || errors.Is(err, transport.ErrClosed) || errors.Is(err, transport.ErrPeerClosed) {
		return
	}
	s.peerErr(p.rank, nodeError(p.rank, err))
}
