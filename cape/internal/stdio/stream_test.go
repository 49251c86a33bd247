package stdio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/transport"
)

// TestStreamCutNamesTheNode cuts a slave's input connection mid-stream:
// the slave must report an error naming its input stream, its program
// must never see the end of its input, the master must report the
// slave's stream naming the node, and the master's program and the other
// slave must still get the whole input.
func TestStreamCutNamesTheNode(t *testing.T) {
	const total = 8 << 20
	pn := newPipeNet(3, map[int]int64{1: 3 << 20})
	r := startRig(t, pn.peers(), pn.conns(), &patternInput{n: total}, 1<<20, nil)

	err := wait(t, r.slaveErr[1], 20*time.Second, "failure on the cut slave")
	if !errors.Is(err, transport.ErrConnLost) || !strings.Contains(err.Error(), "standard input stream from the master cut after") {
		t.Fatalf("slave 1 failed with %v, want a cut input stream (ErrConnLost)", err)
	}
	var ne *transport.NodeError
	if errors.As(err, &ne) {
		t.Fatalf("slave 1's failure %v blames node %d, want its own input stream", err, ne.Rank)
	}
	perr := wait(t, r.peerErrs, 20*time.Second, "master's report of the cut stream")
	if !errors.As(perr, &ne) || ne.Rank != 1 || !strings.HasPrefix(ne.Op, "standard input stream: ") ||
		!errors.Is(perr, transport.ErrConnLost) {
		t.Fatalf("the master reported %v, want node 1's standard input stream lost", perr)
	}
	checkWhole(t, "the master's program", r.sinks[0], total)
	checkWhole(t, "slave 2", r.sinks[2], total)
	time.Sleep(100 * time.Millisecond) // the cut slave's feed has drained its queue
	got, ended, bad := r.sinks[1].state()
	if ended || bad != nil || got >= total {
		t.Fatalf("the cut slave's program got %d bytes of %d, end of input %v (%v): want a short input and no end", got, total, ended, bad)
	}
	select {
	case err := <-r.jobErr:
		t.Fatalf("the master's input failed: %v", err)
	case err := <-r.peerErrs:
		t.Fatalf("the master reported a second failure: %v", err)
	default:
	}
}

// fakeConn is a slave's connection that replays msgs, then err (none:
// it waits for ever, the master said everything), and records what the
// slave sends.
type fakeConn struct {
	msgs []transport.Message
	err  error
	sent chan transport.Message
}

func (c *fakeConn) Recv() (transport.Message, error) {
	if len(c.msgs) == 0 {
		if c.err == nil {
			select {}
		}
		return transport.Message{}, c.err
	}
	m := c.msgs[0]
	c.msgs = c.msgs[1:]
	return m, nil
}

func (c *fakeConn) Send(m transport.Message) error {
	if c.sent != nil {
		c.sent <- m
	}
	return nil
}

func (c *fakeConn) Close() error { return nil }

func dataMsg(off, n int64) transport.Message {
	p := make([]byte, n)
	for i := range p {
		p[i] = pattern(off + int64(i))
	}
	return transport.Message{Kind: KindData, Seq: uint64(off), Payload: p}
}

func endMsg(n uint64) transport.Message {
	return transport.Message{Kind: KindEnd, Seq: n, Payload: binary.LittleEndian.AppendUint64(nil, n)}
}

// TestEndOnlyWithTheCount feeds a slave's side scripted streams: the
// program sees the end of its input only after an end message whose count
// matches the bytes received; a short count, a gap, an unknown message or
// a lost connection fail the stream with the program's input left open;
// the master's orderly close neither fails nor ends it.
func TestEndOnlyWithTheCount(t *testing.T) {
	lost := &transport.NodeError{Rank: 0, Addr: "x", Op: "recv", Err: transport.ErrConnLost}
	for _, tc := range []struct {
		name    string
		msgs    []transport.Message
		err     error
		wantErr error // nil: no failure
		wantEnd bool
	}{
		{"whole", []transport.Message{dataMsg(0, 1000), dataMsg(1000, 500), endMsg(1500)}, nil, nil, true},
		{"empty", []transport.Message{endMsg(0)}, nil, nil, true},
		{"cut", []transport.Message{dataMsg(0, 1000)}, lost, transport.ErrConnLost, false},
		{"short count", []transport.Message{dataMsg(0, 1000), endMsg(2000)}, nil, ErrProtocol, false},
		{"long count", []transport.Message{dataMsg(0, 1000), endMsg(999)}, nil, ErrProtocol, false},
		{"end of 4 bytes", []transport.Message{dataMsg(0, 10), {Kind: KindEnd, Seq: 10, Payload: make([]byte, 4)}}, nil, ErrProtocol, false},
		{"gap", []transport.Message{dataMsg(0, 1000), dataMsg(2000, 10)}, nil, ErrProtocol, false},
		{"overlap", []transport.Message{dataMsg(0, 1000), dataMsg(500, 10)}, nil, ErrProtocol, false},
		{"unknown kind", []transport.Message{dataMsg(0, 10), {Kind: KindAck, Payload: make([]byte, 8)}}, nil, ErrProtocol, false},
		{"timeout", nil, &transport.NodeError{Rank: 0, Op: "recv", Err: transport.ErrPeerTimeout}, transport.ErrPeerTimeout, false},
		{"master closed", []transport.Message{dataMsg(0, 100)}, &transport.NodeError{Rank: 0, Op: "recv", Err: transport.ErrPeerClosed}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSink()
			errs := make(chan error, 1)
			q := NewQueue(&fakeConn{msgs: tc.msgs, err: tc.err}, 1<<20, func(err error) { errs <- err })
			q.Start(s)
			if tc.wantEnd {
				wait(t, s.eof, 5*time.Second, "end of input")
			}
			var err error
			select {
			case err = <-errs:
			case <-time.After(200 * time.Millisecond):
			}
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("failure %v, want %v", err, tc.wantErr)
			}
			var ne *transport.NodeError
			if errors.As(err, &ne) {
				t.Fatalf("failure %v blames node %d, want this node's input stream", err, ne.Rank)
			}
			if _, ended, bad := s.state(); ended != tc.wantEnd || bad != nil {
				t.Fatalf("end of input %v, want %v (%v)", ended, tc.wantEnd, bad)
			}
		})
	}
}

// TestQueueAcknowledges checks the slave's acknowledgements: each counts
// the bytes fed so far in its payload and Seq, they never decrease, and
// the last one covers the whole input (the queue ran dry).
func TestQueueAcknowledges(t *testing.T) {
	const ackEvery = 3000
	msgs := []transport.Message{dataMsg(0, 1000), dataMsg(1000, 4000), dataMsg(5000, 10), dataMsg(5010, 2500), endMsg(7510)}
	conn := &fakeConn{msgs: msgs, sent: make(chan transport.Message, 16)}
	s := newSink()
	q := NewQueue(conn, ackEvery, func(err error) { t.Errorf("the stream failed: %v", err) })
	q.Start(s)
	wait(t, s.eof, 5*time.Second, "end of input")
	var last int64
	for last < 7510 {
		m := wait(t, conn.sent, 5*time.Second, fmt.Sprintf("acknowledgement after %d", last))
		v := int64(binary.LittleEndian.Uint64(m.Payload))
		if m.Kind != KindAck || len(m.Payload) != 8 || m.Seq != uint64(v) || v <= last || v > 7510 {
			t.Fatalf("acknowledgement kind %d, seq %d, payload %x after %d", m.Kind, m.Seq, m.Payload, last)
		}
		last = v
	}
}

// TestStreamMemoryBounded streams 32 MiB to a fast slave and a slow one
// (nothing for 200ms, then 1ms per write of at most 64 KiB): the bytes the
// master holds and each slave queues must never exceed the window and a
// chunk, the slow slave's queue must fill its window (the stream does not
// wait for acknowledgements it need not), and every program gets the
// whole input.
func TestStreamMemoryBounded(t *testing.T) {
	const total, window = 32 << 20, 2 << 20
	slow := newSink()
	slow.delay, slow.hold = time.Millisecond, make(chan struct{})
	pn := newPipeNet(3, nil)
	r := startRig(t, pn.peers(), pn.conns(), &patternInput{n: total}, window, map[int]*sink{2: slow})
	time.Sleep(200 * time.Millisecond) // the slow program takes nothing yet: the stream fills the window
	r.share.mu.Lock()
	read := r.share.read
	r.share.mu.Unlock()
	if read > window+Chunk {
		t.Errorf("the master read %d bytes while a program took none: want at most the window (%d) and a chunk", read, window)
	}
	close(slow.hold)
	for rank := range 3 {
		checkWhole(t, fmt.Sprintf("node %d", rank), r.sinks[rank], total)
	}
	const bound = window + Chunk
	r.share.mu.Lock()
	peak, held := r.share.peak, r.share.held
	r.share.mu.Unlock()
	if peak > bound {
		t.Errorf("the master held up to %d bytes, bound %d", peak, bound)
	}
	if held != 0 {
		t.Errorf("the master holds %d bytes after every consumer took the whole input", held)
	}
	for rank, q := range r.queues {
		q.mu.Lock()
		if q.peak > bound {
			t.Errorf("slave %d queued up to %d bytes, bound %d", rank, q.peak, bound)
		}
		if rank == 2 && q.peak < window/2 {
			t.Errorf("the slow slave queued at most %d bytes: the stream did not fill its window (%d) while it took nothing", q.peak, window)
		}
		q.mu.Unlock()
	}
}

// TestLostSlaveHoldsNoOneBack gives slave 2 a program that does not
// read: the stream stops a window ahead of it, until the job declares it
// lost (Drop); then the master's program and slave 1 get the whole input,
// and slave 2 sees the master's orderly close, not a failure.
func TestLostSlaveHoldsNoOneBack(t *testing.T) {
	const total, window = 16 << 20, 1 << 20
	stuck := newSink()
	stuck.hold = make(chan struct{})
	defer close(stuck.hold)
	pn := newPipeNet(3, nil)
	r := startRig(t, pn.peers(), pn.conns(), &patternInput{n: total}, window, map[int]*sink{2: stuck})
	time.Sleep(300 * time.Millisecond)
	if got, _, _ := r.sinks[0].state(); got >= total || got > 2*window+2*Chunk {
		t.Fatalf("the master's program got %d bytes while slave 2 took none: want at most the window (%d) and a few chunks", got, window)
	}
	r.share.Drop(2)
	checkWhole(t, "the master's program", r.sinks[0], total)
	checkWhole(t, "slave 1", r.sinks[1], total)
	select {
	case err := <-r.peerErrs:
		t.Fatalf("the master reported %v for a slave it dropped", err)
	case err := <-r.slaveErr[2]:
		t.Fatalf("the dropped slave failed: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	if _, ended, _ := stuck.state(); ended {
		t.Fatal("the dropped slave's program saw the end of its input")
	}
}

// TestSlaveEndIsNotAFailure closes a slave's side in order while the
// master still streams (its program ended): the master must not report a
// failure, and the others get the whole input.
func TestSlaveEndIsNotAFailure(t *testing.T) {
	const total, window = 8 << 20, 1 << 20
	pn := newPipeNet(3, nil)
	r := startRig(t, pn.peers(), pn.conns(), &patternInput{n: total}, window, nil)
	time.Sleep(20 * time.Millisecond)
	if err := r.queues[2].Close(); err != nil {
		t.Fatal(err)
	}
	checkWhole(t, "the master's program", r.sinks[0], total)
	checkWhole(t, "slave 1", r.sinks[1], total)
	select {
	case err := <-r.peerErrs:
		t.Fatalf("the master reported %v for a slave that ended in order", err)
	case err := <-r.slaveErr[2]:
		t.Fatalf("the closed slave failed: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
}

// TestReadErrorIsNotEndOfInput makes the master's real input fail after
// 1 MiB: the job must fail with the read error, and no program may see an
// end of input.
func TestReadErrorIsNotEndOfInput(t *testing.T) {
	eio := errors.New("input/output error")
	pn := newPipeNet(2, nil)
	r := startRig(t, pn.peers(), pn.conns(), &patternInput{n: 1 << 20, err: eio}, 1<<20, nil)
	err := wait(t, r.jobErr, 10*time.Second, "job failure")
	if !errors.Is(err, eio) || !strings.Contains(err.Error(), fmt.Sprintf("read after %d bytes", 1<<20)) {
		t.Fatalf("the job failed with %v, want the read error after 1 MiB", err)
	}
	time.Sleep(100 * time.Millisecond)
	for rank, s := range r.sinks {
		if _, ended, _ := s.state(); ended {
			t.Fatalf("node %d's program saw the end of its input after a read error", rank)
		}
	}
}

// recordPeers is one slave's connection on the master's side that
// records what the master sends and acknowledges every chunk at once, as
// a slave with a fast program would.
type recordPeers struct {
	sent chan transport.Message
	acks chan transport.Message
}

func (p *recordPeers) Send(rank int, m transport.Message) error {
	p.sent <- m
	if m.Kind == KindData {
		p.acks <- transport.Message{Kind: KindAck, Payload: wire.U64Payload(m.Seq + uint64(len(m.Payload)))}
	}
	return nil
}

func (p *recordPeers) Recv(rank int) (transport.Message, error) { return <-p.acks, nil }

func (p *recordPeers) Drop(int) error { return nil }

func (p *recordPeers) Close() error { return nil }

// TestShareOffsets streams inputs of sizes around the chunk to one slave
// and checks the messages: data at contiguous offsets from 0, each at
// most a chunk, then one end whose Seq and payload are the input's size.
func TestShareOffsets(t *testing.T) {
	for _, n := range []int64{0, 1, Chunk - 1, Chunk, Chunk + 1, 3*Chunk + 17, 40000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			pm := &recordPeers{sent: make(chan transport.Message, 64), acks: make(chan transport.Message, 64)}
			s := NewShare(pm, []int{1}, Window, func(err error) { t.Errorf("input failed: %v", err) },
				func(rank int, err error) { t.Errorf("node %d failed: %v", rank, err) })
			program := newSink()
			s.Start(&patternInput{n: n}, program)
			var off int64
			for {
				m := wait(t, pm.sent, 5*time.Second, fmt.Sprintf("message after %d bytes", off))
				if m.Kind == KindEnd {
					if m.Seq != uint64(n) || len(m.Payload) != 8 || binary.LittleEndian.Uint64(m.Payload) != uint64(n) || off != n {
						t.Fatalf("end at seq %d, payload %x after %d bytes sent; want %d", m.Seq, m.Payload, off, n)
					}
					break
				}
				if m.Kind != KindData || m.Seq != uint64(off) || len(m.Payload) == 0 || len(m.Payload) > Chunk {
					t.Fatalf("message kind %d at seq %d of %d bytes after %d sent", m.Kind, m.Seq, len(m.Payload), off)
				}
				for i, c := range m.Payload {
					if c != pattern(off+int64(i)) {
						t.Fatalf("byte %d sent is %#x", off+int64(i), c)
					}
				}
				off += int64(len(m.Payload))
			}
			checkWhole(t, "the master's program", program, n)
		})
	}
}

// TestShareRefusesBadAcks checks the master's reading of a slave's
// acknowledgement: another kind, another size, a count that goes back or
// beyond the bytes sent are protocol errors, and leave the slave's
// position as it was.
func TestShareRefusesBadAcks(t *testing.T) {
	ack := func(v uint64) transport.Message {
		return transport.Message{Kind: KindAck, Seq: v, Payload: binary.LittleEndian.AppendUint64(nil, v)}
	}
	for _, tc := range []struct {
		name  string
		msg   transport.Message
		ok    bool
		acked int64
	}{
		{"forward", ack(70), true, 70},
		{"same", ack(50), true, 50},
		{"all sent", ack(100), true, 100},
		{"back", ack(49), false, 50},
		{"beyond sent", ack(101), false, 50},
		{"data kind", transport.Message{Kind: KindData, Payload: make([]byte, 8)}, false, 50},
		{"short", transport.Message{Kind: KindAck, Payload: make([]byte, 7)}, false, 50},
		{"long", transport.Message{Kind: KindAck, Payload: make([]byte, 9)}, false, 50},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewShare(nil, []int{1}, Window, nil, nil)
			p := s.peers[0]
			p.sent, p.acked = 100, 50
			err := s.ack(p, tc.msg)
			if (err == nil) != tc.ok || err != nil && !errors.Is(err, ErrProtocol) {
				t.Fatalf("ack(%v) = %v, want ok %v (else ErrProtocol)", tc.msg, err, tc.ok)
			}
			if p.acked != tc.acked {
				t.Fatalf("acknowledged position %d, want %d", p.acked, tc.acked)
			}
		})
	}
}
