package transport

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"
)

// startAdmitting starts a job of size nodes that admits up to two joining
// nodes, and returns the master, its slaves, the listener's address and
// the ranks admitted (in order).
func startAdmitting(t *testing.T, size int) (*Master, []*Slave, string, chan int) {
	t.Helper()
	cfg := testConfig(size)
	cfg.MaxJoin = 2
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	slaves := make([]*Slave, size)
	done := make(chan error, size)
	for rank := 1; rank < size; rank++ {
		go func() {
			var err error
			slaves[rank], err = Dial(context.Background(), ln.Addr().String(), rank, cfg)
			done <- err
		}()
	}
	m, err := NewMaster(ln, cfg)
	if err != nil {
		t.Fatalf("NewMaster: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	for rank := 1; rank < size; rank++ {
		if err := <-done; err != nil {
			t.Fatalf("Dial: %v", err)
		}
	}
	joined := make(chan int, 4)
	if err := m.Admit(ln, func(rank int) { joined <- rank }); err != nil {
		t.Fatalf("Admit: %v", err)
	}
	return m, slaves, ln.Addr().String(), joined
}

// TestAdmitJoiningNode checks admission after start-up: a node with the
// token joins under a rank from Size on; until Include, Send and Recv
// reach it and Broadcast does not; then Broadcast and Gather include it.
// A taken rank, a rank of the start-up and a wrong token are refused.
func TestAdmitJoiningNode(t *testing.T) {
	m, slaves, addr, joined := startAdmitting(t, 2)
	cfg := testConfig(2)
	cfg.MaxJoin = 2
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	j, err := Dial(ctx, addr, 2, cfg)
	if err != nil {
		t.Fatalf("a joining node: %v", err)
	}
	defer j.Close()
	if rank := <-joined; rank != 2 {
		t.Fatalf("joined rank %d, want 2", rank)
	}
	if _, err := Dial(ctx, addr, 2, cfg); !errors.Is(err, ErrRankTaken) {
		t.Errorf("a second node under rank 2: %v, want ErrRejected", err)
	}
	if _, err := Dial(ctx, addr, 1, cfg); !errors.Is(err, ErrRejected) {
		t.Errorf("a joining node under rank 1: %v, want ErrRejected", err)
	}
	bad := cfg
	bad.Token = []byte("another-token-of-32-bytes-ok-not")
	if _, err := Dial(ctx, addr, 3, bad); !errors.Is(err, ErrAuth) {
		t.Errorf("a joining node with another token: %v, want ErrAuth", err)
	}
	if err := m.Broadcast(Message{Kind: MinKind, Seq: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := slaves[1].Recv(); err != nil {
		t.Fatal(err)
	}
	if err := m.Send(2, Message{Kind: MinKind + 1, Seq: 2}); err != nil {
		t.Fatalf("Send to a joined node: %v", err)
	}
	msg, err := j.Recv()
	if err != nil || msg.Kind != MinKind+1 {
		t.Fatalf("the joined node received kind %d (%v), want only the message sent to it", msg.Kind, err)
	}
	if err := m.Include(2); err != nil {
		t.Fatalf("Include: %v", err)
	}
	if err := m.Broadcast(Message{Kind: MinKind, Seq: 3}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Slave{slaves[1], j} {
		if msg, err := s.Recv(); err != nil || msg.Seq != 3 {
			t.Fatalf("after Include: %v, seq %d, want the broadcast", err, msg.Seq)
		}
	}
	for _, s := range []*Slave{slaves[1], j} {
		if err := s.Send(Message{Kind: MinKind, Seq: 4}); err != nil {
			t.Fatal(err)
		}
	}
	msgs, err := m.Gather()
	if err != nil || len(msgs) < 3 || msgs[1].Seq != 4 || msgs[2].Seq != 4 {
		t.Fatalf("Gather with a joined node: %v %+v", err, msgs)
	}
	if _, ok, err := slaves[1].TryRecv(); ok || err != nil {
		t.Errorf("TryRecv with nothing queued: %v %v", ok, err)
	}
}
