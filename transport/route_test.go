package transport

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestRouterSharesPort runs two services on one port, each with its own
// job id: each service's slaves authenticate and exchange messages over
// connections the Router handed it; once sealed and both services closed,
// the port is closed.
func TestRouterSharesPort(t *testing.T) {
	ln := listen(t)
	r, err := NewRouter(ln, testConfig(3))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	addr := ln.Addr().String()

	ids := []uint64{0xC0FFEE, 0xBEEF}
	masters := make([]*Master, len(ids))
	var wg sync.WaitGroup
	errs := make([]error, 3*len(ids)) // per service: its master's, then its slaves'
	for i, id := range ids {
		l, err := r.Listen(id)
		if err != nil {
			t.Fatal(err)
		}
		if l.Addr().String() != addr {
			t.Errorf("service %#x listens at %v, want the shared %s", id, l.Addr(), addr)
		}
		cfg := testConfig(3)
		cfg.JobID = id
		wg.Add(1)
		go func() {
			defer wg.Done()
			masters[i], errs[3*i] = NewMaster(l, cfg)
			l.Close()
		}()
	}
	r.Seal()
	slaves := make([][]*Slave, len(ids))
	for i, id := range ids {
		cfg := testConfig(3)
		cfg.JobID = id
		slaves[i] = make([]*Slave, 3)
		for rank := 1; rank < 3; rank++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s, err := Dial(context.Background(), addr, rank, cfg)
				if err != nil {
					errs[3*i+rank] = err
					return
				}
				slaves[i][rank] = s
			}()
		}
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for i := range ids {
		defer masters[i].Close()
		for rank := 1; rank < 3; rank++ {
			defer slaves[i][rank].Close()
			if err := masters[i].Send(rank, Message{Kind: MinKind, Seq: uint64(i), Payload: []byte{byte(i), byte(rank)}}); err != nil {
				t.Fatal(err)
			}
			msg, err := slaves[i][rank].Recv()
			if err != nil || msg.Seq != uint64(i) || msg.Payload[0] != byte(i) || msg.Payload[1] != byte(rank) {
				t.Fatalf("service %d, node %d received %+v, %v", i, rank, msg, err)
			}
		}
	}
	// Both services closed and the router sealed: the port closes.
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if errors.Is(err, syscall.ECONNREFUSED) {
			break
		}
		if c != nil {
			c.Close()
		}
		if time.Now().After(deadline) {
			t.Fatalf("the shared port still accepts after every service closed: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRouterRefusesSilent checks where the Router sends what is not a
// hello of a service's job: garbage goes to the first service (whose
// handshake refuses it); a connection that sends nothing is closed once the
// handshake time is up, with a notice.
func TestRouterRefusesSilent(t *testing.T) {
	ln := listen(t)
	notices := make(chan string, 4)
	cfg := testConfig(2)
	cfg.PeerTimeout = time.Second // the handshake time: 1 s
	cfg.Notice = func(s string) { notices <- s }
	r, err := NewRouter(ln, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	def, err := r.Listen(1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Listen(2); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Listen(2); !errors.Is(err, ErrConfig) {
		t.Errorf("a second service for job id 2: %v, want ErrConfig", err)
	}
	silent, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	garbage, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer garbage.Close()
	junk := "GET / HTTP/1.0\r\nHost: x\r\n\r\n"
	if _, err := garbage.Write([]byte(junk)); err != nil {
		t.Fatal(err)
	}
	got := await(t, 5*time.Second, "accept the garbage", func() net.Conn {
		c, err := def.Accept()
		if err != nil {
			t.Error(err)
		}
		return c
	})
	if got != nil {
		b := make([]byte, len(junk))
		_ = got.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, err := io.ReadFull(got, b)
		if err != nil || string(b[:n]) != junk {
			t.Errorf("the first service reads %q, %v; want the garbage", b[:n], err)
		}
		got.Close()
	}
	select {
	case s := <-notices:
		if !strings.HasPrefix(s, "refused a connection from ") || !strings.Contains(s, "sent nothing in 1s") {
			t.Errorf("notice %q", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no notice of the silent connection after 5s")
	}
	_ = silent.SetReadDeadline(time.Now().Add(time.Second))
	if _, err := silent.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Errorf("the silent connection: %v, want closed by the router", err)
	}
}

// TestRouterKeepsTCPConn checks that a routed connection reaches its
// service as the accepted *net.TCPConn where the hello can be peeked, so
// that the transport keeps its raw socket path.
func TestRouterKeepsTCPConn(t *testing.T) {
	ln := listen(t)
	r, err := NewRouter(ln, testConfig(2))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	l, err := r.Listen(7)
	if err != nil {
		t.Fatal(err)
	}
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	hello := appendHandshake(nil, &hsMsg{typ: hsHello, rank: 1, size: 2, jobID: 7})
	// In two pieces: the Router waits for the whole job id.
	if _, err := nc.Write(hello[:10]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if _, err := nc.Write(hello[10:]); err != nil {
		t.Fatal(err)
	}
	got := await(t, 5*time.Second, "accept", func() net.Conn {
		c, err := l.Accept()
		if err != nil {
			t.Error(err)
		}
		return c
	})
	if got == nil {
		return
	}
	defer got.Close()
	if _, ok := got.(*net.TCPConn); !ok && peekable {
		t.Errorf("routed connection is a %T, want *net.TCPConn", got)
	}
	b := make([]byte, len(hello))
	if _, err := got.Read(b); err != nil || string(b[:4]) != hsMagic {
		t.Errorf("the service reads %q, %v: want the hello from its first byte", b, err)
	}
}

// TestRouterCloseFreesHandOver: Close returns at once while a connection
// waits to be handed to a service that does not accept.
func TestRouterCloseFreesHandOver(t *testing.T) {
	ln := listen(t)
	cfg := testConfig(2)
	cfg.PeerTimeout = 5 * time.Second // the hand-over would wait this long
	r, err := NewRouter(ln, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Listen(7); err != nil {
		t.Fatal(err)
	}
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, err := nc.Write(appendHandshake(nil, &hsMsg{typ: hsHello, rank: 1, size: 2, jobID: 7})); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // routed, waiting for an Accept
	await(t, 2*time.Second, "Close", func() error { return r.Close() })
	_ = nc.SetReadDeadline(time.Now().Add(2 * time.Second))
	// Closed with its hello unread: EOF or a reset.
	if _, err := nc.Read(make([]byte, 1)); err == nil || isTimeout(err) {
		t.Errorf("the waiting connection: %v, want closed", err)
	}
}

// TestRouterWaitsForItsFirstService: slaves that dial the port before any
// service listens (the master still setting up) are routed to the job's
// service once it listens, and nothing is reported refused.
func TestRouterWaitsForItsFirstService(t *testing.T) {
	ln := listen(t)
	cfg := testConfig(3)
	var mu sync.Mutex
	var notices []string
	cfg.Notice = func(s string) { mu.Lock(); notices = append(notices, s); mu.Unlock() }
	r, err := NewRouter(ln, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	addr := ln.Addr().String()
	slaves := make([]*Slave, 3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for rank := 1; rank < 3; rank++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slaves[rank], errs[rank] = Dial(context.Background(), addr, rank, cfg)
		}()
	}
	time.Sleep(200 * time.Millisecond) // the hellos are sent and wait for a service
	l, err := r.Listen(cfg.JobID)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMaster(l, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for rank := 1; rank < 3; rank++ {
		slaves[rank].Close()
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notices) != 0 {
		t.Fatalf("connections refused while the first service was not listening yet: %q", notices)
	}
}
