package transport

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"
)

// slowReader reads at most n bytes per Read, pausing before each: a
// receiver starved of CPU.
type slowReader struct {
	r     io.Reader
	n     int
	pause time.Duration
}

func (s *slowReader) Read(p []byte) (int, error) {
	time.Sleep(s.pause)
	return s.r.Read(p[:min(len(p), s.n)])
}

// TestCloseLosesNothing: the master broadcasts a message larger than the
// socket buffers and closes at once, while the slave reads slowly and keeps
// sending heartbeats. A socket closed with unread data, or receiving data
// after its close, is reset, and the reset drops what the kernel had not
// sent yet: the tail of the message. The slave must get the whole message,
// then the goodbye, then EOF; and Close must return soon after.
func TestCloseLosesNothing(t *testing.T) {
	cfg := testConfig(2)
	m, p := rawMasterJob(t, cfg)
	want := payload(3<<20+777, 5)

	// The raw slave: heartbeats every 10ms, as a live slave sends them,
	// until it has read the goodbye.
	stopBeats := make(chan struct{})
	beatsDone := make(chan struct{})
	beat := p.frames(t, kindHeartbeat, 0, nil) // one frame; the counter moves on per frame
	go func() {
		defer close(beatsDone)
		for {
			select {
			case <-stopBeats:
				return
			case <-time.After(10 * time.Millisecond):
			}
			if _, err := p.nc.Write(beat); err != nil {
				return
			}
			beat = p.frames(t, kindHeartbeat, 0, nil)
		}
	}()

	closed := make(chan time.Time, 1)
	go func() {
		if err := m.Broadcast(Message{Kind: 16, Seq: 1, Payload: want}); err != nil {
			t.Errorf("Broadcast: %v", err)
		}
		m.Close() // the tail of the message is still in the kernel
		closed <- time.Now()
	}()

	fr := newFrameReader(&slowReader{r: p.nc, n: 64 << 10, pause: 5 * time.Millisecond}, p.in, m.cfg.MaxFrame, nil)
	var got []Message
	var end error
	for end == nil {
		kind, seq, pl, err := fr.readMessage()
		switch {
		case err != nil:
			end = err
		case kind == kindHeartbeat:
		case kind == kindBye:
			close(stopBeats)
			<-beatsDone
			got = append(got, Message{Kind: kind})
		default:
			got = append(got, Message{Kind: kind, Seq: seq, Payload: pl})
		}
	}
	if len(got) != 2 || got[0].Kind != 16 || got[0].Seq != 1 || !bytes.Equal(got[0].Payload, want) || got[1].Kind != kindBye {
		var desc []string
		for _, m := range got {
			desc = append(desc, fmt.Sprintf("kind %d seq %d %d bytes", m.Kind, m.Seq, len(m.Payload)))
		}
		t.Fatalf("the slave read %v then %v; want the %d-byte message, the goodbye and EOF", desc, end, len(want))
	}
	if end != io.EOF {
		t.Errorf("after the goodbye: %v, want EOF", end)
	}
	// The master drained until this side ended.
	p.nc.Close()
	ended := time.Now()
	at := await(t, 3*time.Second, "master Close", func() time.Time { return <-closed })
	if d := at.Sub(ended); d > time.Second {
		t.Errorf("master Close returned %v after the slave closed", d)
	}
}

// TestCloseAfterRelayedBroadcast: a chain (and a tree) of 4 where the
// master closes right after its Broadcast and every slave right after it
// received the message, as the runtime's last region does. The master's
// goodbye and a relay node's end must not cost a slave further down the
// message, and every Close must return promptly.
func TestCloseAfterRelayedBroadcast(t *testing.T) {
	for _, mode := range []string{BroadcastChain, BroadcastTree} {
		t.Run(mode, func(t *testing.T) {
			for i := range 3 {
				cfg := testConfig(4)
				cfg.Broadcast = mode
				m, slaves := startJob(t, cfg, nil)
				if err := m.RelayErr(); err != nil {
					t.Fatal(err)
				}
				want := payload(8<<20+i, byte(i))
				var wg sync.WaitGroup
				errs := make([]error, len(slaves))
				for rank := 1; rank < len(slaves); rank++ {
					wg.Go(func() {
						defer slaves[rank].Close()
						msg, err := slaves[rank].Recv()
						if err == nil && (msg.Kind != 20 || msg.Seq != 3 || !bytes.Equal(msg.Payload, want)) {
							err = fmt.Errorf("kind %d seq %d, %d bytes", msg.Kind, msg.Seq, len(msg.Payload))
						}
						errs[rank] = err
					})
				}
				if err := m.Broadcast(Message{Kind: 20, Seq: 3, Payload: want}); err != nil {
					t.Fatal(err)
				}
				await(t, 3*time.Second, "master Close", m.Close)
				await(t, 10*time.Second, "slaves", func() struct{} { wg.Wait(); return struct{}{} })
				for rank, err := range errs {
					if err != nil {
						t.Errorf("round %d: rank %d: %v", i, rank, err)
					}
				}
			}
		})
	}
}

// TestRelayNodeClosesMidForward: slave 2 of a chain calls Close while the
// relayed message is passing through it; Close waits for the forward in
// progress, so rank 3 gets the whole message, not a cut one.
func TestRelayNodeClosesMidForward(t *testing.T) {
	cfg := testConfig(4)
	cfg.Broadcast = BroadcastChain
	m, slaves := startJob(t, cfg, nil)
	if err := m.RelayErr(); err != nil {
		t.Fatal(err)
	}
	want := payload(32<<20, 3)
	// Rank 2 closes as soon as it starts forwarding.
	started := make(chan struct{})
	var once sync.Once
	r := slaves[2].relay
	r.mu.Lock()
	r.started = func() { once.Do(func() { close(started) }) }
	r.mu.Unlock()
	got := make(chan recvResult, 1)
	go func() { msg, err := slaves[3].Recv(); got <- recvResult{msg, err} }()
	go func() { _ = m.Broadcast(Message{Kind: 20, Seq: 1, Payload: want}) }()
	<-started
	await(t, 5*time.Second, "Close of the relay node", slaves[2].Close)
	res := await(t, 10*time.Second, "rank 3 Recv", func() recvResult { return <-got })
	if res.err != nil || !bytes.Equal(res.msg.Payload, want) {
		t.Fatalf("rank 3: %d bytes, %v; want the %d-byte message", len(res.msg.Payload), res.err, len(want))
	}
	// The next broadcast cannot reach rank 3: its chain parent is gone.
	_ = m.Broadcast(Message{Kind: 20, Seq: 2, Payload: want[:100]})
	_, err := await(t, 5*time.Second, "rank 3 Recv", func() recvResult { msg, err := slaves[3].Recv(); return recvResult{msg, err} }).unpack()
	wantNodeErr(t, err, 2, ErrPeerClosed)
}

// TestOtherParentsEndDoNotFailRelay: rank 3's tree parent is 1 and its
// chain parent 2. A tree broadcast must reach rank 3 although the master
// and rank 2 said goodbye before it arrived.
func TestOtherParentsEndDoNotFailRelay(t *testing.T) {
	cfg := testConfig(4)
	cfg.Broadcast = BroadcastTree
	m, slaves := startJob(t, cfg, nil)
	if err := m.RelayErr(); err != nil {
		t.Fatal(err)
	}
	// Hold rank 1's forwarding until the others have ended.
	hold := make(chan struct{})
	r := slaves[1].relay
	r.mu.Lock()
	r.started = func() { <-hold }
	r.mu.Unlock()
	want := payload(100<<10, 7) // fits in the socket buffers: Broadcast returns
	if err := m.Broadcast(Message{Kind: 20, Seq: 1, Payload: want}); err != nil {
		t.Fatal(err)
	}
	slaves[2].Close()
	go m.Close()
	// Rank 3 has seen both goodbyes.
	r3 := slaves[3].relay
	r3.mu.Lock()
	conns := append([]*conn{slaves[3].c}, r3.parents...)
	r3.mu.Unlock()
	for _, c := range conns {
		if c.rank != 1 {
			await(t, 5*time.Second, "goodbye", func() struct{} { <-c.dead; return struct{}{} })
		}
	}
	close(hold)
	res := await(t, 5*time.Second, "rank 3 Recv", func() recvResult { msg, err := slaves[3].Recv(); return recvResult{msg, err} })
	if res.err != nil || !bytes.Equal(res.msg.Payload, want) {
		t.Fatalf("rank 3: %d bytes, %v", len(res.msg.Payload), res.err)
	}
}

// TestWaitClosed: WaitClosed returns once every slave closed, and names the
// slaves still connected when it times out.
func TestWaitClosed(t *testing.T) {
	cfg := testConfig(4)
	m, slaves := startJob(t, cfg, nil)
	slaves[1].Close()
	slaves[3].Close()
	err := m.WaitClosed(200 * time.Millisecond)
	if !errors.Is(err, ErrPeerTimeout) || !bytes.Contains([]byte(err.Error()), []byte("[2]")) {
		t.Errorf("WaitClosed with rank 2 open: %v", err)
	}
	go func() { time.Sleep(50 * time.Millisecond); slaves[2].Close() }()
	if err := await(t, 2*time.Second, "WaitClosed", func() error { return m.WaitClosed(5 * time.Second) }); err != nil {
		t.Errorf("WaitClosed: %v", err)
	}
	m.Close()
	if err := m.WaitClosed(time.Second); err != ErrClosed && err != nil {
		t.Errorf("WaitClosed after Close: %v", err)
	}
}
