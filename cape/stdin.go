package cape

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/cape-go/cape/transport"
)

// Every node runs the program's sequential code, so every node must read
// the same standard input, while a launcher gives it to one process at most
// (cape run and srun to the master, mpirun to rank 0). So when the master's
// standard input is a file, a pipe or a socket, the master streams it to
// the slaves: at Init it replaces its own descriptor 0 with a pipe, reads
// the real input in a goroutine (at most stdinAhead bytes ahead of what its
// own program consumed), feeds its program through the pipe and sends every
// chunk to each slave over a connection of its own (authenticated like the
// job's), where a goroutine queues the chunks and feeds the slave program's
// descriptor 0, a pipe too. Any other standard input (a terminal, /dev/null,
// none) becomes /dev/null on every node: a terminal is never read, since a
// node is not in the terminal's foreground.

// Message kinds of the set-up on the job's connection.
const (
	kindStdinInfo uint8 = 56 // master → slave: u8 mode (stdinNone, stdinStream), u16 port
)

// Message kinds on the input's own connection.
const (
	kindStdinData uint8 = transport.MinKind + iota // master → slave: the next bytes
	kindStdinEnd                                   // master → slave: the end; payload empty, or the read error's text
)

const (
	stdinNone   = 0
	stdinStream = 1

	stdinChunk = 64 << 10
	stdinAhead = 16 << 20
)

// stdinJobID keeps the input's connections apart from the job's.
func stdinJobID(job uint64) uint64 { return job ^ 0x7374_6469_6e00_0000 }

// stdinShare is the master's side: the input read so far, by chunk.
type stdinShare struct {
	mu     sync.Mutex
	cond   *sync.Cond
	chunks [][]byte
	read   int   // bytes read from the real input
	fed    int   // bytes written to this node's program
	end    bool  // the real input ended
	err    error // the read error, if it did not end at EOF
	pm     *transport.Master
}

// shareStdinMaster decides how the job reads standard input and tells the
// slaves; streaming, it starts the master's side.
func (n *node) shareStdinMaster(ln net.Listener) error {
	stream, err := stdinIsStream()
	if err != nil {
		return fmt.Errorf("standard input: %w", err)
	}
	if !stream {
		if err := n.sendEach(kindStdinInfo, []byte{stdinNone, 0, 0}); err != nil {
			return fmt.Errorf("standard input set-up: %w", err)
		}
		return devNullStdin()
	}
	sln, port, err := n.listenBeside(stdinJobID(n.cfg.Job))
	if err != nil {
		return fmt.Errorf("standard input: open its server: %w", err)
	}
	defer sln.Close()
	if err := n.sendEach(kindStdinInfo, binary.LittleEndian.AppendUint16([]byte{stdinStream}, uint16(port))); err != nil {
		return fmt.Errorf("standard input set-up: %w", err)
	}
	s := &stdinShare{}
	s.cond = sync.NewCond(&s.mu)
	if s.pm, err = transport.NewMaster(sln, n.stdinConfig()); err != nil {
		return fmt.Errorf("standard input: wait for the slaves: %w", err)
	}
	src, w, err := pipeStdin()
	if err != nil {
		return fmt.Errorf("standard input: %w", err)
	}
	go s.readFrom(src)
	go s.feed(w)
	for rank := 1; rank < n.size; rank++ {
		go s.send(rank)
	}
	return nil
}

func (n *node) stdinConfig() transport.Config {
	c := transport.Config{Token: n.cfg.Token, JobID: stdinJobID(n.cfg.Job), Size: n.size, MaxFrame: 2 * stdinChunk}
	if d := n.cfg.PeerTimeout; d > 0 {
		c.PeerTimeout, c.HandshakeTimeout = d, 3*d
	}
	return c
}

// readFrom reads the real input into chunks, staying at most stdinAhead
// bytes ahead of this node's program.
func (s *stdinShare) readFrom(src *os.File) {
	defer src.Close()
	for {
		s.mu.Lock()
		for s.read-s.fed >= stdinAhead {
			s.cond.Wait()
		}
		s.mu.Unlock()
		buf := make([]byte, stdinChunk)
		k, err := src.Read(buf)
		s.mu.Lock()
		if k > 0 {
			s.chunks = append(s.chunks, buf[:k])
			s.read += k
		}
		if err != nil {
			s.end = true
			if !errors.Is(err, io.EOF) {
				s.err = err
			}
		}
		s.cond.Broadcast()
		s.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// next waits for chunk i, or the end: ok is false at the end.
func (s *stdinShare) next(i int) (b []byte, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i >= len(s.chunks) && !s.end {
		s.cond.Wait()
	}
	if i < len(s.chunks) {
		return s.chunks[i], true
	}
	return nil, false
}

// feed writes the input to this node's program through its pipe.
func (s *stdinShare) feed(w *os.File) {
	defer w.Close()
	for i := 0; ; i++ {
		b, ok := s.next(i)
		if !ok {
			return
		}
		if _, err := w.Write(b); err != nil {
			return // the program closed its standard input
		}
		s.mu.Lock()
		s.fed += len(b)
		s.cond.Broadcast()
		s.mu.Unlock()
	}
}

// send streams the input to one slave. A slave that ended (after the
// last region, or lost) stops its stream; the job's connection reports it.
func (s *stdinShare) send(rank int) {
	for i := 0; ; i++ {
		b, ok := s.next(i)
		if !ok {
			break
		}
		if err := s.pm.Send(rank, transport.Message{Kind: kindStdinData, Payload: b}); err != nil {
			return
		}
	}
	var why []byte
	if s.err != nil {
		why = []byte(s.err.Error())
	}
	_ = s.pm.Send(rank, transport.Message{Kind: kindStdinEnd, Payload: why})
}

// takeStdinSlave reads the master's decision and, streaming, connects to
// the master's input server and starts feeding this node's program.
func (n *node) takeStdinSlave() error {
	msg, err := n.slave.Recv()
	if err == nil {
		err = fromMaster(msg, kindStdinInfo, 0)
	}
	if err == nil && (len(msg.Payload) != 3 || msg.Payload[0] > stdinStream) {
		err = fmt.Errorf("standard input information of %d bytes, mode %v", len(msg.Payload), msg.Payload)
	}
	if err != nil {
		return fmt.Errorf("standard input set-up: %w", err)
	}
	if msg.Payload[0] == stdinNone {
		return devNullStdin()
	}
	host, _, err := net.SplitHostPort(n.cfg.Master)
	if err != nil {
		return fmt.Errorf("standard input: master address %q: %w", n.cfg.Master, err)
	}
	port := binary.LittleEndian.Uint16(msg.Payload[1:])
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, err := transport.Dial(ctx, net.JoinHostPort(host, strconv.Itoa(int(port))), n.rank, n.stdinConfig())
	if err != nil {
		return fmt.Errorf("standard input: connect to the master: %w", err)
	}
	_, w, err := pipeStdin()
	if err != nil {
		conn.Close()
		return fmt.Errorf("standard input: %w", err)
	}
	q := &stdinQueue{}
	q.cond = sync.NewCond(&q.mu)
	go q.receive(conn)
	go q.feed(w)
	return nil
}

// stdinQueue is a slave's input: what arrived and was not yet fed to the
// program (the program may read slower than the master's).
type stdinQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	chunks [][]byte
	end    bool
	why    string // the master's read error, if its input did not end normally
}

func (q *stdinQueue) receive(conn *transport.Slave) {
	defer conn.Close()
	for {
		msg, err := conn.Recv()
		q.mu.Lock()
		switch {
		case err != nil:
			q.end = true // the master ended: the job's connection says how
		case msg.Kind == kindStdinData:
			q.chunks = append(q.chunks, msg.Payload)
		case msg.Kind == kindStdinEnd:
			q.end, q.why = true, string(msg.Payload)
		default:
			q.end, q.why = true, fmt.Sprintf("message kind %d on the input's connection", msg.Kind)
		}
		end := q.end
		q.cond.Broadcast()
		q.mu.Unlock()
		if end {
			return
		}
	}
}

// feed writes the queued input to the program; at the end it closes the
// pipe (the program sees the end of its input), saying why if the input
// did not end normally.
func (q *stdinQueue) feed(w *os.File) {
	defer w.Close()
	for {
		q.mu.Lock()
		for len(q.chunks) == 0 && !q.end {
			q.cond.Wait()
		}
		if len(q.chunks) == 0 {
			why := q.why
			q.mu.Unlock()
			if why != "" {
				fmt.Fprintf(os.Stderr, "cape: standard input from the master ended early: %s\n", why)
			}
			return
		}
		b := q.chunks[0]
		q.chunks[0] = nil
		q.chunks = q.chunks[1:]
		q.mu.Unlock()
		if _, err := w.Write(b); err != nil {
			return
		}
	}
}
