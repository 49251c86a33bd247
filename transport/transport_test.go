package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

func payload(n int, seed byte) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(i*7) + seed
	}
	return p
}

func TestHappyPath(t *testing.T) {
	cfg := testConfig(4)
	m, slaves := startJob(t, cfg, nil)
	const big = 3<<20 + 12345 // several chunks, last one partial

	// Gather: every slave sends; one of them a multi-chunk payload.
	for rank := 1; rank < cfg.Size; rank++ {
		go func() {
			n := rank * 1000
			if rank == 2 {
				n = big
			}
			if err := slaves[rank].Send(Message{Kind: 20, Seq: 7, Payload: payload(n, byte(rank))}); err != nil {
				t.Errorf("slave %d send: %v", rank, err)
			}
		}()
	}
	msgs, err := await(t, 10*time.Second, "Gather", func() recvResult2 {
		ms, err := m.Gather()
		return recvResult2{ms, err}
	}).unpack()
	if err != nil {
		t.Fatal(err)
	}
	for rank := 1; rank < cfg.Size; rank++ {
		n := rank * 1000
		if rank == 2 {
			n = big
		}
		if msgs[rank].Kind != 20 || msgs[rank].Seq != 7 || !bytes.Equal(msgs[rank].Payload, payload(n, byte(rank))) {
			t.Errorf("rank %d: got kind %d seq %d len %d", rank, msgs[rank].Kind, msgs[rank].Seq, len(msgs[rank].Payload))
		}
	}

	// Broadcast, including an empty payload, received by every slave.
	for i, p := range [][]byte{payload(big, 9), nil} {
		if err := m.Broadcast(Message{Kind: 21, Seq: uint64(i), Payload: p}); err != nil {
			t.Fatal(err)
		}
		for rank := 1; rank < cfg.Size; rank++ {
			r := await(t, 5*time.Second, "slave Recv", func() recvResult { msg, err := slaves[rank].Recv(); return recvResult{msg, err} })
			if r.err != nil || r.msg.Kind != 21 || r.msg.Seq != uint64(i) || !bytes.Equal(r.msg.Payload, p) {
				t.Fatalf("rank %d broadcast %d: kind %d seq %d len %d err %v", rank, i, r.msg.Kind, r.msg.Seq, len(r.msg.Payload), r.err)
			}
		}
	}

	// Request/response in both directions with concurrent Recv on the
	// master (one goroutine per rank, as a chunk server does) and
	// concurrent Send/Recv on each slave.
	const rounds = 50
	var wg sync.WaitGroup
	for rank := 1; rank < cfg.Size; rank++ {
		wg.Go(func() { // master side
			for i := range rounds {
				msg, err := m.Recv(rank)
				if err != nil {
					t.Errorf("master recv %d: %v", rank, err)
					return
				}
				if msg.Kind != 30 || msg.Seq != uint64(i) {
					t.Errorf("master recv %d: kind %d seq %d, want 30 %d", rank, msg.Kind, msg.Seq, i)
				}
				if err := m.Send(rank, Message{Kind: 31, Seq: msg.Seq, Payload: msg.Payload}); err != nil {
					t.Errorf("master send %d: %v", rank, err)
					return
				}
			}
		})
		s := slaves[rank]
		wg.Go(func() { // slave sender
			for i := range rounds {
				if err := s.Send(Message{Kind: 30, Seq: uint64(i), Payload: payload(i*100, byte(rank))}); err != nil {
					t.Errorf("slave %d send: %v", rank, err)
					return
				}
			}
		})
		wg.Go(func() { // slave receiver, concurrent with the sender
			for i := range rounds {
				msg, err := s.Recv()
				if err != nil {
					t.Errorf("slave %d recv: %v", rank, err)
					return
				}
				if msg.Kind != 31 || msg.Seq != uint64(i) || !bytes.Equal(msg.Payload, payload(i*100, byte(rank))) {
					t.Errorf("slave %d recv: kind %d seq %d len %d", rank, msg.Kind, msg.Seq, len(msg.Payload))
				}
			}
		})
	}
	await(t, 20*time.Second, "request/response", func() struct{} { wg.Wait(); return struct{}{} })

	// A slave's clean Close is ErrPeerClosed on the master, after the
	// messages it sent before.
	if err := slaves[3].Send(Message{Kind: 40}); err != nil {
		t.Fatal(err)
	}
	slaves[3].Close()
	if msg, err := m.Recv(3); err != nil || msg.Kind != 40 {
		t.Fatalf("last message: %v %v", msg, err)
	}
	_, err = await(t, time.Second, "Recv after close", func() recvResult { msg, err := m.Recv(3); return recvResult{msg, err} }).unpack()
	wantNodeErr(t, err, 3, ErrPeerClosed)
	err = m.Send(3, Message{Kind: 40})
	wantNodeErr(t, err, 3, ErrPeerClosed)
	if _, err := slaves[3].Recv(); err != ErrClosed {
		t.Errorf("Recv on a closed slave: %v, want ErrClosed", err)
	}
}

type recvResult2 struct {
	msgs []Message
	err  error
}

func (r recvResult2) unpack() ([]Message, error) { return r.msgs, r.err }
func (r recvResult) unpack() (Message, error)    { return r.msg, r.err }

func TestSingleNode(t *testing.T) {
	m, err := NewMaster(listen(t), testConfig(1))
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := m.Gather()
	if err != nil || len(msgs) != 1 {
		t.Fatalf("Gather: %v %v", msgs, err)
	}
	if err := m.Broadcast(Message{Kind: 16}); err != nil {
		t.Fatal(err)
	}
	if err := m.Send(1, Message{Kind: 16}); !errors.Is(err, ErrConfig) {
		t.Errorf("Send to rank 1 of 1: %v", err)
	}
	m.Close()
}

// TestPeerAddr checks that the master sees each slave at the address the
// slave's end has (distributed homes dial a node at its PeerAddr's host),
// and that PeerAddr has no address for the master's rank or one out of
// range.
func TestPeerAddr(t *testing.T) {
	m, slaves := startJob(t, testConfig(3), nil)
	for rank := 1; rank < 3; rank++ {
		if got, want := m.PeerAddr(rank), slaves[rank].LocalAddr().String(); got != want {
			t.Errorf("PeerAddr(%d) = %q, slave %d's LocalAddr %q", rank, got, rank, want)
		}
	}
	if a, b := m.PeerAddr(1), m.PeerAddr(2); a == b {
		t.Errorf("slaves 1 and 2 at the same address %q", a)
	}
	for _, rank := range []int{-1, 0, 3} {
		if got := m.PeerAddr(rank); got != "" {
			t.Errorf("PeerAddr(%d) = %q, want none", rank, got)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []Config{
		{Token: []byte("short"), Size: 2},
		{Token: testToken, Size: 0},
		{Token: testToken, Size: 2, MaxFrame: -1},
		{Token: testToken, Size: 2, PeerTimeout: time.Second, HeartbeatInterval: time.Second},
	} {
		if _, err := NewMaster(nil, c); !errors.Is(err, ErrConfig) {
			t.Errorf("NewMaster(%+v): %v, want ErrConfig", c, err)
		}
	}
	for _, rank := range []int{0, -1, 3} {
		if _, err := Dial(context.Background(), "127.0.0.1:1", rank, testConfig(3)); !errors.Is(err, ErrConfig) {
			t.Errorf("Dial rank %d: %v, want ErrConfig", rank, err)
		}
	}
}

func TestSendChecks(t *testing.T) {
	cfg := testConfig(2)
	cfg.MaxFrame = 1000
	m, slaves := startJob(t, cfg, nil)
	if err := m.Send(1, Message{Kind: kindHeartbeat}); !errors.Is(err, ErrReservedKind) {
		t.Errorf("reserved kind: %v", err)
	}
	if err := slaves[1].Send(Message{Kind: 16, Payload: make([]byte, 1001)}); !errors.Is(err, ErrFrameTooLarge) {
		t.Errorf("too large: %v", err)
	}
	// The connection is still fine.
	if err := slaves[1].Send(Message{Kind: 16, Payload: make([]byte, 1000)}); err != nil {
		t.Fatal(err)
	}
	if msg, err := m.Recv(1); err != nil || len(msg.Payload) != 1000 {
		t.Fatal(msg, err)
	}
}

// joinFailure runs a master with a short join deadline against the given
// slaves and returns the master's error and the slaves' Dial errors.
func joinFailure(t *testing.T, mcfg Config, dials map[int]Config) (error, map[int]error) {
	t.Helper()
	ln := listen(t)
	mcfg.HandshakeTimeout = 700 * time.Millisecond
	errs := make(map[int]error)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for rank, cfg := range dials {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			s, err := Dial(ctx, ln.Addr().String(), rank, cfg)
			if s != nil {
				defer s.Close()
			}
			mu.Lock()
			errs[rank] = err
			mu.Unlock()
		})
	}
	_, err := await(t, 5*time.Second, "NewMaster", func() recvResult2 {
		m, err := NewMaster(ln, mcfg)
		if m != nil {
			m.Close()
		}
		return recvResult2{nil, err}
	}).unpack()
	wg.Wait()
	if !errors.Is(err, ErrJoinTimeout) {
		t.Fatalf("NewMaster: %v, want ErrJoinTimeout", err)
	}
	return err, errs
}

func TestWrongTokenSlave(t *testing.T) {
	bad := testConfig(2)
	bad.Token = []byte("another-token-of-the-wrong-job!!")
	merr, derrs := joinFailure(t, testConfig(2), map[int]Config{1: bad})
	if !errors.Is(merr, ErrAuth) || !strings.Contains(merr.Error(), "node 1 (127.0.0.1:") {
		t.Errorf("master error %q, want ErrAuth naming node 1", merr)
	}
	wantNodeErr(t, derrs[1], 0, ErrAuth)
	t.Logf("master: %v\nslave: %v", merr, derrs[1])
}

func TestWrongTokenMaster(t *testing.T) {
	// A fake master with another token: it answers the slave's proof with
	// "accepted" and a proof made with its token. The slave must refuse.
	ln := listen(t)
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		hello, err := readHandshake(nc)
		if err != nil {
			return
		}
		tr := transcript{hello: hello}
		tr.nonceM, _ = randomNonce()
		writeHandshake(nc, &hsMsg{typ: hsChallenge, nonce: tr.nonceM})
		if _, err := readHandshake(nc); err != nil {
			return
		}
		writeHandshake(nc, &hsMsg{typ: hsResult, status: statusOK, mac: tr.proof([]byte("the-fake-master-token-0123456789"), labelMaster)})
		nc.Read(make([]byte, 1))
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, err := Dial(ctx, ln.Addr().String(), 1, testConfig(2))
	wantNodeErr(t, err, 0, ErrAuth)
	if !strings.Contains(err.Error(), "master did not prove") {
		t.Errorf("error %q", err)
	}
	t.Log(err)
}

func TestDuplicateRank(t *testing.T) {
	cfg := testConfig(3)
	merr, derrs := joinFailure(t, cfg, map[int]Config{1: cfg})
	_ = derrs
	// Second attempt as rank 1 while the first is joined.
	ln := listen(t)
	mcfg := cfg
	mcfg.HandshakeTimeout = time.Second
	done := make(chan error, 1)
	go func() {
		m, err := NewMaster(ln, mcfg)
		if m != nil {
			m.Close()
		}
		done <- err
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	s1, err := Dial(ctx, ln.Addr().String(), 1, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s1.Close()
	_, err = Dial(ctx, ln.Addr().String(), 1, cfg)
	wantNodeErr(t, err, 0, ErrRejected)
	if !strings.Contains(err.Error(), "duplicate rank") {
		t.Errorf("slave error %q", err)
	}
	merr = <-done
	if !errors.Is(merr, ErrRejected) || !strings.Contains(merr.Error(), "node 1 (127.0.0.1:") ||
		!strings.Contains(merr.Error(), "duplicate rank 1 (already joined from 127.0.0.1:") {
		t.Errorf("master error %q", merr)
	}
	t.Logf("master: %v\nslave: %v", merr, err)
}

func TestRankOutOfRange(t *testing.T) {
	wide := testConfig(5)
	merr, derrs := joinFailure(t, testConfig(3), map[int]Config{4: wide})
	wantNodeErr(t, derrs[4], 0, ErrRejected)
	if !errors.Is(merr, ErrRejected) || !strings.Contains(merr.Error(), "node 4 (127.0.0.1:") ||
		!strings.Contains(merr.Error(), "rank 4 out of range [1, 3)") {
		t.Errorf("master error %q", merr)
	}
	t.Logf("master: %v\nslave: %v", merr, derrs[4])
}

func TestWrongJobID(t *testing.T) {
	other := testConfig(2)
	other.JobID++
	merr, derrs := joinFailure(t, testConfig(2), map[int]Config{1: other})
	wantNodeErr(t, derrs[1], 0, ErrRejected)
	if !strings.Contains(derrs[1].Error(), "wrong job id") {
		t.Errorf("slave error %q", derrs[1])
	}
	if !errors.Is(merr, ErrRejected) || !strings.Contains(merr.Error(), "node 1 (127.0.0.1:") ||
		!strings.Contains(merr.Error(), "job id 0xc0ffef, want 0xc0ffee") {
		t.Errorf("master error %q", merr)
	}
}

func TestGarbageConnectionDoesNotStopJoin(t *testing.T) {
	cfg := testConfig(2)
	ln := listen(t)
	// A port scanner and a silent connection come first.
	g, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	g.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
	defer g.Close()
	silent, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		s, err := Dial(context.Background(), ln.Addr().String(), 1, cfg)
		if err == nil {
			t.Cleanup(func() { s.Close() })
		}
	}()
	m, err := await(t, 5*time.Second, "NewMaster", func() recvResult2 {
		m, err := NewMaster(ln, cfg)
		if m != nil {
			t.Cleanup(func() { m.Close() })
		}
		return recvResult2{nil, err}
	}).unpack()
	if err != nil {
		t.Fatal(m, err)
	}
}

func TestDialRetriesUntilMasterListens(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // refused until the master starts
	cfg := testConfig(2)
	type dialResult struct {
		s   *Slave
		err error
	}
	ch := make(chan dialResult, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s, err := Dial(ctx, addr, 1, cfg)
		ch <- dialResult{s, err}
	}()
	time.Sleep(300 * time.Millisecond)
	ln, err = net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("port %s taken meanwhile: %v", addr, err)
	}
	defer ln.Close()
	m, err := NewMaster(ln, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	r := <-ch
	if r.err != nil {
		t.Fatal(r.err)
	}
	r.s.Close()

	// With nobody listening, Dial gives up at the context's deadline.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	ln.Close()
	_, err = Dial(ctx, addr, 1, cfg)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Errorf("Dial without master: %v after %v", err, time.Since(start))
	}
}

// tamper flips one byte of a frame at the given offset.
func tamper(b []byte, off int) []byte {
	b = bytes.Clone(b)
	b[off] ^= 0x10
	return b
}

func expectDropped(t *testing.T, nc net.Conn) {
	t.Helper()
	nc.SetReadDeadline(time.Now().Add(2 * time.Second))
	buf := make([]byte, 4096)
	for {
		_, err := nc.Read(buf)
		if err == nil {
			continue // heartbeats sent before the drop
		}
		if errors.Is(err, net.ErrClosed) || strings.Contains(err.Error(), "timeout") {
			t.Errorf("connection not dropped: %v", err)
		}
		return
	}
}

func TestCorruptFrame(t *testing.T) {
	p := payload(3000, 1)
	cases := map[string]int{
		"kind":        0,
		"length":      6,
		"seq":         12,
		"total":       20,
		"header tag":  headerLen + 3,
		"payload":     headerLen + tagLen + 1500,
		"payload tag": headerLen + tagLen + len(p) + 15,
	}
	for name, off := range cases {
		t.Run(name, func(t *testing.T) {
			m, raw := rawMasterJob(t, testConfig(2))
			if _, err := raw.nc.Write(tamper(raw.frames(t, 20, 5, p), off)); err != nil {
				t.Fatal(err)
			}
			_, err := await(t, 2*time.Second, "Recv", func() recvResult { msg, err := m.Recv(1); return recvResult{msg, err} }).unpack()
			wantNodeErr(t, err, 1, ErrCorruptFrame)
			expectDropped(t, raw.nc)
			if name == "kind" {
				t.Log(err)
			}
		})
	}
}

func TestReplayedAndReorderedFrames(t *testing.T) {
	t.Run("replay", func(t *testing.T) {
		m, raw := rawMasterJob(t, testConfig(2))
		f := raw.frames(t, 20, 1, []byte("pay 1 unit"))
		raw.nc.Write(f)
		raw.nc.Write(f)
		if msg, err := m.Recv(1); err != nil || string(msg.Payload) != "pay 1 unit" {
			t.Fatalf("first copy: %v %v", msg, err)
		}
		_, err := await(t, 2*time.Second, "Recv", func() recvResult { msg, err := m.Recv(1); return recvResult{msg, err} }).unpack()
		wantNodeErr(t, err, 1, ErrCorruptFrame)
	})
	t.Run("reorder", func(t *testing.T) {
		m, raw := rawMasterJob(t, testConfig(2))
		f1 := raw.frames(t, 20, 1, []byte("first"))
		f2 := raw.frames(t, 20, 2, []byte("second"))
		raw.nc.Write(append(f2, f1...))
		_, err := await(t, 2*time.Second, "Recv", func() recvResult { msg, err := m.Recv(1); return recvResult{msg, err} }).unpack()
		wantNodeErr(t, err, 1, ErrCorruptFrame)
	})
	t.Run("chunk swap", func(t *testing.T) {
		old := chunkLen
		chunkLen = 1000
		defer func() { chunkLen = old }()
		m, raw := rawMasterJob(t, testConfig(2))
		f := raw.frames(t, 20, 1, payload(2000, 3))
		// Swap the two chunks' payloads (same sizes), keep the tags in place.
		const fl = headerLen + tagLen + 1000 + tagLen
		g := bytes.Clone(f)
		copy(g[headerLen+tagLen:], f[fl+headerLen+tagLen:fl+headerLen+tagLen+1000])
		copy(g[fl+headerLen+tagLen:], f[headerLen+tagLen:headerLen+tagLen+1000])
		raw.nc.Write(g)
		_, err := await(t, 2*time.Second, "Recv", func() recvResult { msg, err := m.Recv(1); return recvResult{msg, err} }).unpack()
		wantNodeErr(t, err, 1, ErrCorruptFrame)
	})
}

func TestFrameTooLargeEndToEnd(t *testing.T) {
	mcfg := testConfig(2)
	mcfg.MaxFrame = 1 << 20
	m, slaves := startJob(t, mcfg, func(int) Config { c := mcfg; c.MaxFrame = 4 << 20; return c })
	if err := slaves[1].Send(Message{Kind: 16, Payload: make([]byte, 2<<20)}); err != nil {
		// The master may drop the connection while the frame is in flight.
		t.Logf("send: %v", err)
	}
	_, err := await(t, 2*time.Second, "Recv", func() recvResult { msg, err := m.Recv(1); return recvResult{msg, err} }).unpack()
	wantNodeErr(t, err, 1, ErrFrameTooLarge)
	t.Log(err)
}

func TestPeerConnectionReset(t *testing.T) {
	cfg := testConfig(3)
	m, slaves := startJob(t, cfg, nil)
	// Rank 2 starts a frame, then its socket is reset (as when a process
	// dies with unread data, or a host reboots).
	raw := slaves[2].c.nc.(*net.TCPConn)
	slaves[2].c.wmu.Lock() // keep heartbeats off the half frame
	raw.Write([]byte{16, 1, 0, 0})
	raw.SetLinger(0)
	start := time.Now()
	raw.Close()
	slaves[2].c.wmu.Unlock()
	_, err := await(t, time.Second, "Gather", func() recvResult2 { ms, err := m.Gather(); return recvResult2{ms, err} }).unpack()
	wantNodeErr(t, err, 2, ErrConnLost)
	t.Logf("%v after %v", err, time.Since(start))
	// The other slave is unaffected.
	if err := slaves[1].Send(Message{Kind: 16}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Recv(1); err != nil {
		t.Fatal(err)
	}
}

func TestPeerStalls(t *testing.T) {
	cfg := testConfig(2)
	cfg.PeerTimeout = 300 * time.Millisecond
	t.Run("slave", func(t *testing.T) {
		m, _ := rawMasterJob(t, cfg) // the raw slave never sends a heartbeat
		start := time.Now()
		_, err := await(t, 2*time.Second, "Recv", func() recvResult { msg, err := m.Recv(1); return recvResult{msg, err} }).unpack()
		wantNodeErr(t, err, 1, ErrPeerTimeout)
		if d := time.Since(start); d < 250*time.Millisecond || d > time.Second {
			t.Errorf("timeout after %v, want about %v", d, cfg.PeerTimeout)
		}
		t.Log(err)
	})
	t.Run("master", func(t *testing.T) {
		ln := listen(t)
		acceptRaw(t, ln, cfg)
		s, err := Dial(context.Background(), ln.Addr().String(), 1, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		_, err = await(t, 2*time.Second, "Recv", func() recvResult { msg, err := s.Recv(); return recvResult{msg, err} }).unpack()
		wantNodeErr(t, err, 0, ErrPeerTimeout)
		if err := s.Send(Message{Kind: 16}); !errors.Is(err, ErrPeerTimeout) {
			t.Errorf("Send after the timeout: %v", err)
		}
	})
}

func TestHeartbeatsKeepIdleConnectionAlive(t *testing.T) {
	cfg := testConfig(2)
	cfg.PeerTimeout = 200 * time.Millisecond
	m, slaves := startJob(t, cfg, nil)
	time.Sleep(4 * cfg.PeerTimeout)
	if err := slaves[1].Send(Message{Kind: 16, Seq: 1}); err != nil {
		t.Fatal(err)
	}
	if msg, err := m.Recv(1); err != nil || msg.Seq != 1 {
		t.Fatal(msg, err)
	}
	if err := m.Send(1, Message{Kind: 16, Seq: 2}); err != nil {
		t.Fatal(err)
	}
	if msg, err := slaves[1].Recv(); err != nil || msg.Seq != 2 {
		t.Fatal(msg, err)
	}
}

func TestCloseUnblocks(t *testing.T) {
	cfg := testConfig(3)
	m, slaves := startJob(t, cfg, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	wg.Go(func() { _, err := m.Recv(1); errs <- err })
	wg.Go(func() { _, err := m.Gather(); errs <- err })
	wg.Go(func() { _, err := slaves[1].Recv(); errs <- err })
	wg.Go(func() { _, err := slaves[2].Recv(); errs <- err })
	time.Sleep(100 * time.Millisecond)
	await(t, 2*time.Second, "Close", func() error { return m.Close() })
	await(t, 2*time.Second, "slave Close", func() error { return slaves[1].Close() })
	await(t, 2*time.Second, "blocked calls", func() struct{} { wg.Wait(); return struct{}{} })
	close(errs)
	var got []string
	for err := range errs {
		got = append(got, fmt.Sprint(err))
		if !errors.Is(err, ErrClosed) && !errors.Is(err, ErrPeerClosed) {
			t.Errorf("unblocked with %v", err)
		}
	}
	t.Log(got)
	if err := m.Send(1, Message{Kind: 16}); err != ErrClosed {
		t.Errorf("Send after Close: %v", err)
	}
	if _, err := m.Recv(2); err != ErrClosed {
		t.Errorf("Recv after Close: %v", err)
	}
	// Slave 2 learnt that the master left.
	_, err := slaves[2].Recv()
	wantNodeErr(t, err, 0, ErrPeerClosed)
}

func TestCloseUnblocksStuckSend(t *testing.T) {
	// The raw master never reads: the slave's send fills the socket
	// buffers and blocks; Close must unblock it.
	cfg := testConfig(2)
	cfg.IOTimeout = 30 * time.Second
	ln := listen(t)
	acceptRaw(t, ln, cfg)
	s, err := Dial(context.Background(), ln.Addr().String(), 1, cfg)
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- s.Send(Message{Kind: 16, Payload: make([]byte, 64<<20)}) }()
	time.Sleep(200 * time.Millisecond)
	await(t, 2*time.Second, "Close", func() error { return s.Close() })
	if err := await(t, 2*time.Second, "Send", func() error { return <-errc }); err != ErrClosed {
		t.Errorf("Send: %v, want ErrClosed", err)
	}
}

func TestWriteTimeout(t *testing.T) {
	cfg := testConfig(2)
	cfg.IOTimeout = 300 * time.Millisecond
	cfg.PeerTimeout = 10 * time.Second
	ln := listen(t)
	acceptRaw(t, ln, cfg)
	s, err := Dial(context.Background(), ln.Addr().String(), 1, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = await(t, 5*time.Second, "Send", func() error { return s.Send(Message{Kind: 16, Payload: make([]byte, 64<<20)}) })
	wantNodeErr(t, err, 0, ErrPeerTimeout)
	t.Log(err)
}

func TestNodeError(t *testing.T) {
	err := fmt.Errorf("gather: %w", &NodeError{Rank: 2, Addr: "127.0.0.1:40312", Op: "recv", Err: &lostError{errors.New("connection reset by peer")}})
	if got, want := err.Error(), "gather: node 2 (127.0.0.1:40312): recv: connection lost: connection reset by peer"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if !errors.Is(err, &NodeError{Rank: 2}) || errors.Is(err, &NodeError{Rank: 1}) || !errors.Is(err, ErrConnLost) {
		t.Error("Is")
	}
	if !errors.Is(err, &NodeError{Rank: 2, Op: "recv"}) || errors.Is(err, &NodeError{Rank: 2, Op: "send"}) {
		t.Error("Is with Op")
	}
	unknown := &NodeError{Rank: -1, Addr: "10.0.0.1:5", Op: "handshake", Err: ErrCorruptFrame}
	if got := unknown.Error(); got != "node ? (10.0.0.1:5): handshake: corrupt frame" {
		t.Error(got)
	}
}

func TestJoinTimeout(t *testing.T) {
	for _, c := range []struct{ peer, want time.Duration }{
		{time.Second, DefaultHandshakeTimeout},
		{3 * time.Second, DefaultHandshakeTimeout},
		{20 * time.Second, 60 * time.Second},
	} {
		if got := JoinTimeout(c.peer); got != c.want {
			t.Errorf("JoinTimeout(%v) = %v, want %v", c.peer, got, c.want)
		}
	}
}
