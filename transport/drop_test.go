package transport

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

// TestDropLostSlave checks what a master that gives up on a lost slave
// gets: Broadcast and Gather skip the dropped slave (and succeed while it
// is dead), the other slaves still get every message, the dropped slave
// sees its connection end, and the relay is off from then on.
func TestDropLostSlave(t *testing.T) {
	cfg := testConfig(4)
	cfg.Broadcast = "tree"
	m, slaves := startJob(t, cfg, nil)
	if err := m.RelayErr(); err != nil {
		t.Fatalf("relay: %v", err)
	}
	slaves[2].c.fail(ErrConnLost) // node 2 is lost: its socket is gone
	if err := m.Drop(2); err != nil {
		t.Fatalf("Drop: %v", err)
	}
	if err := m.Drop(2); err != nil {
		t.Fatalf("Drop again: %v", err)
	}
	if m.RelayErr() == nil {
		t.Errorf("the relay is still on after a drop")
	}
	big := bytes.Repeat([]byte{7}, 1<<20) // large enough for the tree, were it on
	if err := await(t, 5*time.Second, "Broadcast", func() error {
		return m.Broadcast(Message{Kind: MinKind, Seq: 1, Payload: big})
	}); err != nil {
		t.Fatalf("Broadcast with a dropped slave: %v", err)
	}
	for _, rank := range []int{1, 3} {
		msg, err := slaves[rank].Recv()
		if err != nil || !bytes.Equal(msg.Payload, big) {
			t.Fatalf("slave %d: %v, %d bytes", rank, err, len(msg.Payload))
		}
		if err := slaves[rank].Send(Message{Kind: MinKind, Seq: 2, Payload: []byte{byte(rank)}}); err != nil {
			t.Fatal(err)
		}
	}
	msgs, err := await(t, 5*time.Second, "Gather", func() recvGather {
		msgs, err := m.Gather()
		return recvGather{msgs, err}
	}).unpack()
	if err != nil || len(msgs[1].Payload) != 1 || len(msgs[3].Payload) != 1 || msgs[2].Payload != nil {
		t.Fatalf("Gather with a dropped slave: %v, %+v", err, msgs)
	}
	if _, err := m.Recv(2); !errors.Is(err, ErrClosed) {
		t.Errorf("Recv from a dropped slave: %v, want ErrClosed", err)
	}
}

// TestExcludeKeepsTheConnection checks that an excluded slave (a straggler
// declared lost) is skipped by Broadcast, while the master still receives
// what it sends late and can tell it to leave.
func TestExcludeKeepsTheConnection(t *testing.T) {
	m, slaves := startJob(t, testConfig(3), nil)
	if err := m.Exclude(1); err != nil {
		t.Fatal(err)
	}
	if err := m.Broadcast(Message{Kind: MinKind, Seq: 1, Payload: []byte("all")}); err != nil {
		t.Fatal(err)
	}
	if msg, err := slaves[2].Recv(); err != nil || string(msg.Payload) != "all" {
		t.Fatalf("slave 2: %v %q", err, msg.Payload)
	}
	if err := slaves[1].Send(Message{Kind: MinKind, Seq: 1, Payload: []byte("late")}); err != nil {
		t.Fatal(err)
	}
	if msg, err := m.Recv(1); err != nil || string(msg.Payload) != "late" {
		t.Fatalf("late message: %v %q", err, msg.Payload)
	}
	if err := m.Send(1, Message{Kind: MinKind + 1, Seq: 1, Payload: []byte("leave")}); err != nil {
		t.Fatal(err)
	}
	msg, err := slaves[1].Recv()
	if err != nil || string(msg.Payload) != "leave" {
		t.Fatalf("slave 1 got %v %q, want only the leave message", err, msg.Payload)
	}
}

type recvGather struct {
	msgs []Message
	err  error
}

func (g recvGather) unpack() ([]Message, error) { return g.msgs, g.err }

// TestHealRelayAroundALostNode: with HealRelay, a relayed broadcast whose
// relay node dies reaches the nodes below it: the master sends it again to
// them when it drops the lost node.
func TestHealRelayAroundALostNode(t *testing.T) {
	cfg := testConfig(5) // tree: 0 → 1, 2; 1 → 3, 4
	cfg.Broadcast, cfg.HealRelay = "tree", true
	m, slaves := startJob(t, cfg, nil)
	if err := m.RelayErr(); err != nil {
		t.Fatalf("relay: %v", err)
	}
	// Node 1 dies: every connection of its ends at once.
	s1 := slaves[1]
	s1.relay.mu.Lock()
	kids := []*conn{s1.relay.kids[3], s1.relay.kids[4]}
	s1.relay.mu.Unlock()
	for _, c := range append(kids, s1.c) {
		c.fail(ErrConnLost)
	}
	big := bytes.Repeat([]byte{9}, 1<<20)
	_ = m.Broadcast(Message{Kind: MinKind, Seq: 5, Payload: big}) // may fail naming node 1
	got := make(chan error, 4)
	for _, rank := range []int{2, 3, 4} {
		go func() {
			msg, err := slaves[rank].Recv()
			if err == nil && (!bytes.Equal(msg.Payload, big) || msg.Seq != 5) {
				err = errors.New("wrong message")
			}
			got <- err
		}()
	}
	time.Sleep(50 * time.Millisecond) // 3 and 4 are cut off until the drop
	if err := m.Drop(1); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		select {
		case err := <-got:
			if err != nil {
				t.Fatalf("a slave below the lost relay node: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a slave below the lost relay node never got the broadcast")
		}
	}
}
