package transport

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestChildrenAndLinks(t *testing.T) {
	for size := 1; size <= 17; size++ {
		for _, k := range []uint8{kindChain, kindTree} {
			// Every slave has exactly one parent in each scheme.
			parents := make([]int, size)
			for r := range size {
				for _, c := range children(k, r, size) {
					parents[c]++
				}
			}
			for r := 1; r < size; r++ {
				if parents[r] != 1 {
					t.Fatalf("size %d kind %d: rank %d has %d parents", size, k, r, parents[r])
				}
			}
		}
		for r := 1; r < size; r++ {
			for _, c := range linkChildren(r, size) {
				if !contains(linkParents(c, size), r) {
					t.Fatalf("size %d: %d dials %d, which does not expect it", size, r, c)
				}
			}
		}
	}
}

func TestChooseScheme(t *testing.T) {
	cases := []struct {
		mode    string
		n, size int
		want    uint8
	}{
		{BroadcastAuto, 10 << 20, 2, 0},
		{BroadcastAuto, 1 << 10, 16, 0},
		{BroadcastAuto, 1 << 20, 16, kindTree},
		{BroadcastAuto, 64 << 20, 16, kindChain},
		{BroadcastStar, 64 << 20, 16, 0},
		{BroadcastTree, 1, 3, kindTree},
		{BroadcastChain, 1, 3, kindChain},
	}
	for _, c := range cases {
		if got := chooseScheme(c.mode, c.n, c.size); got != c.want {
			t.Errorf("chooseScheme(%s, %d, %d) = %d, want %d", c.mode, c.n, c.size, got, c.want)
		}
	}
}

// TestRelayedBroadcast checks that every scheme delivers every payload
// intact and in its place among the master's point-to-point messages.
func TestRelayedBroadcast(t *testing.T) {
	for _, mode := range []string{BroadcastStar, BroadcastTree, BroadcastChain, BroadcastAuto} {
		for _, size := range []int{3, 4, 7} {
			t.Run(fmt.Sprintf("%s/%d", mode, size), func(t *testing.T) {
				cfg := testConfig(size)
				cfg.Broadcast = mode
				m, slaves := startJob(t, cfg, nil)
				if err := m.RelayErr(); err != nil {
					t.Fatalf("relay setup: %v", err)
				}
				payloads := [][]byte{nil, []byte("small"), bytes.Repeat([]byte("0123456789abcdef"), 3*chunkLen/16+5)}
				done := make(chan error, size)
				for rank := 1; rank < size; rank++ {
					go func() {
						for i, want := range payloads {
							msg, err := slaves[rank].Recv()
							if err != nil {
								done <- err
								return
							}
							if msg.Kind != 20 || msg.Seq != uint64(i) || !bytes.Equal(msg.Payload, want) {
								done <- fmt.Errorf("rank %d: broadcast %d: kind %d seq %d, %d bytes", rank, i, msg.Kind, msg.Seq, len(msg.Payload))
								return
							}
							msg, err = slaves[rank].Recv()
							if err != nil || msg.Kind != 21 || msg.Seq != uint64(i) {
								done <- fmt.Errorf("rank %d: after broadcast %d: %+v %v", rank, i, msg.Kind, err)
								return
							}
						}
						done <- nil
					}()
				}
				for i, p := range payloads {
					if err := m.Broadcast(Message{Kind: 20, Seq: uint64(i), Payload: p}); err != nil {
						t.Fatal(err)
					}
					for rank := 1; rank < size; rank++ {
						if err := m.Send(rank, Message{Kind: 21, Seq: uint64(i)}); err != nil {
							t.Fatal(err)
						}
					}
				}
				for range size - 1 {
					if err := await(t, 10*time.Second, "slaves", func() error { return <-done }); err != nil {
						t.Fatal(err)
					}
				}
			})
		}
	}
}

// TestRelayParentFails: a slave whose relay parent dies gets an error from
// Recv, never a hang.
func TestRelayParentFails(t *testing.T) {
	cfg := testConfig(4)
	cfg.Broadcast = BroadcastChain
	m, slaves := startJob(t, cfg, nil)
	if err := m.RelayErr(); err != nil {
		t.Fatal(err)
	}
	slaves[2].Close() // rank 3's chain parent
	_ = m.Broadcast(Message{Kind: 20, Payload: make([]byte, 100)})
	r := await(t, 5*time.Second, "Recv on rank 3", func() error {
		_, err := slaves[3].Recv()
		return err
	})
	var ne *NodeError
	if r == nil || (!errors.As(r, &ne) && !errors.Is(r, ErrClosed)) {
		t.Fatalf("rank 3 Recv: %v, want a NodeError", r)
	}
}
