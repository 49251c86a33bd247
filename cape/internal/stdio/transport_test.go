package stdio

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/cape-go/cape/transport"
)

// connectTransport connects a master to size-1 slaves with the real
// transport on loopback, configured by Config. via[r], if set, makes
// slave r dial through it (a proxy).
func connectTransport(t *testing.T, size int, via map[int]func(string) string) (Peers, map[int]Conn) {
	t.Helper()
	tok := make([]byte, 32)
	if _, err := rand.Read(tok); err != nil {
		t.Fatal(err)
	}
	cfg := Config(tok, 0x5eed, size, 5*time.Second)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	type dialled struct {
		rank int
		s    *transport.Slave
	}
	ch := make(chan dialled, size)
	for r := 1; r < size; r++ {
		addr := ln.Addr().String()
		if via[r] != nil {
			addr = via[r](addr)
		}
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			s, err := transport.Dial(ctx, addr, r, cfg)
			if err != nil {
				t.Errorf("slave %d: %v", r, err)
			}
			ch <- dialled{r, s}
		}()
	}
	pm, err := transport.NewMaster(ln, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pm.Close() })
	conns := map[int]Conn{}
	for range size - 1 {
		d := <-ch
		if d.s == nil {
			t.FailNow()
		}
		conns[d.rank] = d.s
	}
	return pm, conns
}

// cutProxy forwards connections to target and resets both sides of each
// once after bytes went from target to the client, as a network cut (or
// ss -K) would.
func cutProxy(t *testing.T, target string, after int64) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	reset := func(c net.Conn) {
		_ = c.(*net.TCPConn).SetLinger(0)
		c.Close()
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			t.Cleanup(func() { c.Close(); s.Close() })
			go func() { _, _ = io.Copy(s, c) }()
			go func() {
				buf := make([]byte, 32<<10)
				var n int64
				for {
					k, err := s.Read(buf)
					if n+int64(k) >= after {
						_, _ = c.Write(buf[:after-n])
						reset(c)
						reset(s)
						return
					}
					if _, werr := c.Write(buf[:k]); werr != nil || err != nil {
						c.Close()
						return
					}
					n += int64(k)
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// TestStreamOverTransport is the wiring check with the real transport
// on loopback: a TCP reset of slave 1's input connection mid-stream is
// reported on the slave as its input cut (ErrConnLost) and on the master
// as node 1's input stream, while the master's program and slave 2, whose
// messages pass the connection's kind limits, get the whole input.
func TestStreamOverTransport(t *testing.T) {
	const total = 8 << 20
	via := map[int]func(string) string{1: func(a string) string { return cutProxy(t, a, 3<<20) }}
	pm, conns := connectTransport(t, 3, via)
	r := startRig(t, pm, conns, &patternInput{n: total}, 1<<20, nil)

	err := wait(t, r.slaveErr[1], 20*time.Second, "failure on the cut slave")
	if !errors.Is(err, transport.ErrConnLost) || !strings.Contains(err.Error(), "standard input stream from the master cut after") {
		t.Fatalf("slave 1 failed with %v, want a cut input stream (ErrConnLost)", err)
	}
	perr := wait(t, r.peerErrs, 20*time.Second, "master's report of the cut stream")
	var ne *transport.NodeError
	if !errors.As(perr, &ne) || ne.Rank != 1 || !strings.Contains(perr.Error(), "standard input stream") {
		t.Fatalf("the master reported %v, want node 1's standard input stream", perr)
	}
	checkWhole(t, "the master's program", r.sinks[0], total)
	checkWhole(t, "slave 2", r.sinks[2], total)
	time.Sleep(100 * time.Millisecond) // the cut slave's feed has drained its queue
	if got, ended, bad := r.sinks[1].state(); ended || bad != nil || got >= total {
		t.Fatalf("the cut slave's program got %d bytes of %d, end of input %v (%v): want a short input and no end", got, total, ended, bad)
	}
	select {
	case err := <-r.jobErr:
		t.Fatalf("the master's input failed: %v", err)
	default:
	}
}
