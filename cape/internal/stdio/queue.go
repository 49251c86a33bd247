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

// Conn is a slave's end of the input's connection (a *transport.Slave).
type Conn interface {
	Send(msg transport.Message) error
	Recv() (transport.Message, error)
	Close() error
}

// Queue is a slave's side of the input stream: it owns the chunks that
// arrived and were not yet written to the program's pipe (the program may
// read slower than the master's), and acknowledges what it wrote, which
// bounds what the master sends ahead (Share). It is safe for concurrent
// use; its goroutines are receive and feed.
//
// The program sees the end of its input only after the master's end
// message, and only if it counted every byte received. Any other end of
// the stream (a cut or reset connection, a timeout, a malformed message)
// is reported to fail and the pipe is left open: a program never takes a
// cut stream for the end of its input. The master's orderly close (the
// job ends) is not a failure: the job's connection says how it ends.
type Queue struct {
	conn     Conn
	ackEvery int64
	// fail reports a stream that failed; the node ends the job with it.
	fail func(error)
	// pipe is the write end of the program's standard input, held for the
	// queue's life: a cut stream leaves it open (the program waits, never
	// reading an end of input), and an *os.File nothing refers to would be
	// closed by the garbage collector, which the program would take for
	// the end of its input.
	pipe io.WriteCloser

	mu         sync.Mutex // protects the following fields
	cond       *sync.Cond
	chunks     [][]byte
	recvd      int64 // bytes received
	end        bool  // the master's end arrived and matched recvd
	broken     bool  // the stream failed, or the master closed it early
	fed        int64 // bytes taken from chunks (written, or discarded once the program closed its input)
	acked      int64 // bytes acknowledged
	closing    bool  // close has begun: no more acknowledgements
	acking     bool  // an acknowledgement is being sent
	held, peak int64 // bytes in chunks, and their most (for tests)
}

// StartQueue starts a slave's side on conn: it makes a pipe this
// process's standard input and feeds it the master's stream. fail is as
// in NewQueue. On an error conn is closed.
func StartQueue(conn Conn, fail func(error)) (*Queue, error) {
	_, w, err := PipeStdin()
	if err != nil {
		conn.Close()
		return nil, err
	}
	q := NewQueue(conn, AckEvery, fail)
	q.Start(w)
	return q, nil
}

// NewQueue returns a slave's side on conn, which acknowledges every
// ackEvery bytes fed (and whenever its queue runs dry); fail is called
// once if the stream fails. Start starts it.
func NewQueue(conn Conn, ackEvery int64, fail func(error)) *Queue {
	q := &Queue{conn: conn, ackEvery: ackEvery, fail: fail}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// Start receives the stream and feeds the program through w.
func (q *Queue) Start(w io.WriteCloser) {
	q.pipe = w
	go q.receive()
	go q.feed(w)
}

// Drop does nothing: a slave streams to no one (see Share.Drop).
func (q *Queue) Drop(int) {}

// receive queues the master's chunks until its end message or a failure.
func (q *Queue) receive() {
	for {
		msg, err := q.conn.Recv()
		q.mu.Lock()
		if err == nil {
			err = q.take(msg)
		}
		if err != nil {
			q.broken = true
		}
		closing, end, recvd := q.closing, q.end, q.recvd
		q.cond.Broadcast()
		q.mu.Unlock()
		switch {
		case end:
			return
		case err == nil:
			continue
		case closing, errors.Is(err, transport.ErrClosed), errors.Is(err, transport.ErrPeerClosed):
			return
		}
		q.fail(cutError(recvd, err))
		return
	}
}

// take queues one message of the stream. q.mu must be held.
func (q *Queue) take(msg transport.Message) error {
	switch msg.Kind {
	case KindData:
		if msg.Seq != uint64(q.recvd) {
			return fmt.Errorf("%w: bytes from offset %d, want %d", ErrProtocol, msg.Seq, q.recvd)
		}
		q.chunks = append(q.chunks, msg.Payload)
		q.recvd += int64(len(msg.Payload))
		q.held += int64(len(msg.Payload))
		q.peak = max(q.peak, q.held)
		return nil
	case KindEnd:
		if len(msg.Payload) != 8 {
			return fmt.Errorf("%w: an end of %d bytes", ErrProtocol, len(msg.Payload))
		}
		if total := int64(binary.LittleEndian.Uint64(msg.Payload)); total != q.recvd {
			return fmt.Errorf("%w: the master sent %d bytes, %d arrived", ErrProtocol, total, q.recvd)
		}
		q.end = true
		return nil
	}
	return fmt.Errorf("%w: message kind %d", ErrProtocol, msg.Kind)
}

// feed writes the queued input to the program and acknowledges it; at the
// end of the input it closes the pipe. Once the program closed its input,
// chunks are discarded (and acknowledged) so that the master is not held
// back.
func (q *Queue) feed(w io.WriteCloser) {
	open := true
	for {
		q.mu.Lock()
		for len(q.chunks) == 0 && !q.end && !q.broken {
			q.cond.Wait()
		}
		if len(q.chunks) == 0 {
			end := q.end
			q.mu.Unlock()
			if end && open {
				w.Close() // every byte the master sent: the end of the input
			}
			return
		}
		b := q.chunks[0]
		q.chunks[0] = nil
		q.chunks = q.chunks[1:]
		q.mu.Unlock()
		if open {
			if _, err := w.Write(b); err != nil {
				open = false
				w.Close()
			}
		}
		q.mu.Lock()
		q.held -= int64(len(b))
		q.fed += int64(len(b))
		q.mu.Unlock()
		q.acknowledge()
	}
}

// acknowledge tells the master how many bytes were fed, once ackEvery
// bytes are unacknowledged or the queue ran dry (the master may be
// waiting for it). A failed send is the receiver's to report.
func (q *Queue) acknowledge() {
	q.mu.Lock()
	v := q.fed
	if q.closing || q.acking || (v-q.acked < q.ackEvery && len(q.chunks) > 0) || v == q.acked {
		q.mu.Unlock()
		return
	}
	q.acking = true
	q.mu.Unlock()
	err := q.conn.Send(transport.Message{Kind: KindAck, Seq: uint64(v), Payload: wire.U64Payload(uint64(v))})
	q.mu.Lock()
	q.acking = false
	if err == nil {
		q.acked = v
	}
	q.cond.Broadcast()
	q.mu.Unlock()
}

// Close ends the stream in order, so that the master sees this node's end
// and not a cut: it waits for an acknowledgement being sent (closing the
// connection then would cut it short, without the goodbye), then closes.
func (q *Queue) Close() error {
	q.mu.Lock()
	q.closing = true
	for q.acking {
		q.cond.Wait()
	}
	q.mu.Unlock()
	return q.conn.Close()
}
