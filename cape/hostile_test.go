package cape

// Hostile peers at the runtime level: the real transport over loopback,
// the real Region.Exchange of the process-wide node, and a peer played by
// the test that holds the job's token but sends what no honest node sends.
// Each case must end in an error naming the peer, within a bounded time,
// with not one byte of the arena written by the exchange.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/internal/arena"
	"github.com/cape-go/cape/monitor"
	"github.com/cape-go/cape/transport"
)

// hostileTable collects the outcome of every case of this file; TestMain
// does not exist in this package, so each top-level test logs its own part.
type hostileTable struct {
	mu   sync.Mutex
	rows []string
}

func (h *hostileTable) add(name string, err error, took time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	msg := "accepted"
	if err != nil {
		msg = strings.ReplaceAll(err.Error(), "|", "/")
	}
	h.rows = append(h.rows, fmt.Sprintf("| %s | %s | %v |", name, msg, took.Round(time.Millisecond)))
}

func (h *hostileTable) log(t *testing.T) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t.Log("\n| case | outcome | time to detect |\n| --- | --- | --- |\n" + strings.Join(h.rows, "\n"))
}

func hostileConfig(t testing.TB) transport.Config {
	t.Helper()
	tok := make([]byte, 32)
	if _, err := rand.Read(tok); err != nil {
		t.Fatal(err)
	}
	return transport.Config{Token: tok, JobID: 0xcafe, Size: 2, Broadcast: transport.BroadcastStar,
		PeerTimeout: time.Second, HeartbeatInterval: 100 * time.Millisecond, HandshakeTimeout: 5 * time.Second,
		IOTimeout: 2 * time.Second}
}

// installNode makes n the process-wide node for the rest of the test, with
// a compare tracker over the shared arena, and restores the previous node
// in t.Cleanup.
func installNode(t testing.TB, n *node) {
	t.Helper()
	a, err := sharedArena()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := monitor.New(monitor.BackendCompare, a.Bytes()[:64<<20], monitor.Options{PageSize: a.PageSize()})
	if err != nil {
		t.Fatal(err)
	}
	n.arena, n.tracker, n.ckpt, n.plan.Compression = a, tr, incremental{}, delta.None
	initMu.Lock()
	old := self
	self = n
	initMu.Unlock()
	t.Cleanup(func() {
		if n.master != nil {
			n.master.Close()
		}
		if n.slave != nil {
			n.slave.Close()
		}
		tr.Close()
		initMu.Lock()
		self = old
		initMu.Unlock()
	})
}

// masterWithPeer makes this process the master of a 2-node job whose slave
// (rank 1) is returned to the test. via, if set, wraps the master's address
// (a proxy) for the slave to dial.
func masterWithPeer(t testing.TB, via func(addr string) string) *transport.Slave {
	t.Helper()
	cfg := hostileConfig(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	addr := ln.Addr().String()
	if via != nil {
		addr = via(addr)
	}
	type res struct {
		s   *transport.Slave
		err error
	}
	ch := make(chan res, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s, err := transport.Dial(ctx, addr, 1, cfg)
		ch <- res{s, err}
	}()
	m, err := transport.NewMaster(ln, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := <-ch
	if r.err != nil {
		m.Close()
		t.Fatal(r.err)
	}
	t.Cleanup(func() { r.s.Close() })
	installNode(t, &node{rank: 0, size: 2, name: "master", master: m})
	return r.s
}

// slaveWithPeer makes this process rank 1 of a 2-node job whose master is
// returned to the test.
func slaveWithPeer(t *testing.T) *transport.Master {
	t.Helper()
	cfg := hostileConfig(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	ch := make(chan *transport.Master, 1)
	go func() {
		m, err := transport.NewMaster(ln, cfg)
		if err != nil {
			t.Error(err)
		}
		ch <- m
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := transport.Dial(ctx, ln.Addr().String(), 1, cfg)
	if err != nil {
		t.Fatal(err)
	}
	m := <-ch
	if m == nil {
		s.Close()
		t.FailNow()
	}
	t.Cleanup(func() { m.Close() })
	installNode(t, &node{rank: 1, size: 2, name: "node 1", slave: s})
	return m
}

// regionUpToExchange runs a region's template up to Exchange on x: this
// node writes its static block and registers a sum reduction of it.
func regionUpToExchange(t *testing.T, x []int64) (*Region, *delta.Delta) {
	t.Helper()
	r, d, _ := regionUpToCreate(t, "hostile", false, x, func(sum *int64, lo, hi int) {
		for i := lo; i < hi; i++ {
			*sum += x[i]
		}
	})
	return r, d
}

// regionUpToCreate runs a region's template up to Create and Stop: Begin
// (then, for the program's last region, Last), Start, a sum reduction,
// this node's static block of x (x[i] = 7i + 1), then body with the sum
// and the block's bounds.
func regionUpToCreate(t *testing.T, name string, last bool, x []int64, body func(sum *int64, lo, hi int)) (*Region, *delta.Delta, *int64) {
	t.Helper()
	r := Begin(name)
	if last {
		r.Last()
	}
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	sum := new(int64)
	Reduction(r, OpAdd, sum)
	lo, hi := r.Static(len(x))
	for i := lo; i < hi; i++ {
		x[i] = int64(i)*7 + 1
	}
	body(sum, lo, hi)
	d, err := r.Create()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Stop(); err != nil {
		t.Fatal(err)
	}
	return r, d, sum
}

func encodeEnvelope(t *testing.T, d *delta.Delta, vals []byte) []byte {
	t.Helper()
	buf := binary.LittleEndian.AppendUint32(nil, uint32(len(vals)))
	buf = append(buf, vals...)
	buf, err := d.AppendBinary(buf, delta.None)
	if err != nil {
		t.Fatal(err)
	}
	return buf
}

// fromSlave is p, an envelope, as a slave's delta message for r: after
// the extent of arena it entered r with, the master's.
func fromSlave(r *Region, p []byte) []byte {
	return append(wire.AppendExtent(nil, r.extent/r.n.arena.PageSize()), p...)
}

// honestDelta is a delta labelled (region, label) holding what an honest
// node of rank writer writes in r over x: its static block.
func honestDelta(x []int64, region uint64, label, writer int) *delta.Delta {
	d := &delta.Delta{}
	d.Reset(region, label)
	lo, hi := block(len(x), writer, 2)
	base := uint64(arenaOffset(x))
	for i := lo; i < hi; i++ {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], uint64(int64(i)*7+1))
		delta.AppendFull(d, base+uint64(i)*8, w[:])
	}
	return d
}

func arenaOffset(x []int64) int {
	return int(reflect.ValueOf(x).Pointer() - the().arena.Addr())
}

// reseal recomputes an encoding's trailing checksum (after a field of the
// body was changed on purpose), as a peer that knows the format would.
func reseal(enc []byte) {
	n := len(enc) - 4
	binary.LittleEndian.PutUint32(enc[n:], crc32.Checksum(enc[:n], crc32.MakeTable(crc32.Castagnoli)))
}

// TestHostileSlave plays a slave that authenticated but sends deltas and
// frames no honest node sends; the master's Exchange must refuse each with
// an error naming node 1, and leave the arena exactly as it was.
func TestHostileSlave(t *testing.T) {
	var table hostileTable
	defer table.log(t)
	x := Make[int64](8192) // 64 KiB: the region's extent covers it
	cases := []struct {
		name  string
		craft func(t *testing.T, r *Region) transport.Message // the slave's message
		want  string
	}{
		{"delta for another region", func(t *testing.T, r *Region) transport.Message {
			return transport.Message{Kind: wire.Delta, Seq: r.seq, Payload: fromSlave(r, encodeEnvelope(t, honestDelta(x, r.seq+1, 1, 1), nil))}
		}, "labelled region"},
		{"delta labelled with another node", func(t *testing.T, r *Region) transport.Message {
			return transport.Message{Kind: wire.Delta, Seq: r.seq, Payload: fromSlave(r, encodeEnvelope(t, honestDelta(x, r.seq, 0, 1), nil))}
		}, "node 0"},
		{"message for another region", func(t *testing.T, r *Region) transport.Message {
			return transport.Message{Kind: wire.Delta, Seq: r.seq + 1, Payload: fromSlave(r, encodeEnvelope(t, honestDelta(x, r.seq+1, 1, 1), nil))}
		}, "node 1 sent message kind"},
		{"run past the arena extent", func(t *testing.T, r *Region) transport.Message {
			d := honestDelta(x, r.seq, 1, 1)
			delta.AppendFull(d, uint64(r.extent), []byte("past the end"))
			return transport.Message{Kind: wire.Delta, Seq: r.seq, Payload: fromSlave(r, encodeEnvelope(t, d, nil))}
		}, "does not fit"},
		{"offset rewritten past the extent, re-checksummed", func(t *testing.T, r *Region) transport.Message {
			// One run at offset 16384: its gap is the 3-byte varint
			// 80 80 01, first in the runs table. Rewrite it to 2^21-1
			// (ff ff 7f), far past the 64 KiB extent, and fix the CRC.
			d := &delta.Delta{}
			d.Reset(r.seq, 1)
			delta.AppendFull(d, 16384, []byte("eight by"))
			p := encodeEnvelope(t, d, nil)
			tab := 4 + 52
			if !bytes.Equal(p[tab:tab+3], []byte{0x80, 0x80, 0x01}) {
				t.Fatalf("runs table starts % x", p[tab:tab+3])
			}
			copy(p[tab:], []byte{0xff, 0xff, 0x7f})
			reseal(p[4:])
			return transport.Message{Kind: wire.Delta, Seq: r.seq, Payload: fromSlave(r, p)}
		}, "does not fit"},
		{"delta larger than the extent", func(t *testing.T, r *Region) transport.Message {
			d := &delta.Delta{}
			d.Reset(r.seq, 1)
			delta.AppendFull(d, 0, make([]byte, r.extent+4096))
			return transport.Message{Kind: wire.Delta, Seq: r.seq, Payload: fromSlave(r, encodeEnvelope(t, d, nil))}
		}, "too large"},
		{"values list that does not match", func(t *testing.T, r *Region) transport.Message {
			vals := binary.LittleEndian.AppendUint32(nil, 1)
			vals = append(vals, 9) // a 1-byte partial for an int64 sum
			return transport.Message{Kind: wire.Delta, Seq: r.seq, Payload: fromSlave(r, encodeEnvelope(t, honestDelta(x, r.seq, 1, 1), vals))}
		}, "reduction partial"},
		{"truncated envelope", func(t *testing.T, r *Region) transport.Message {
			return transport.Message{Kind: wire.Delta, Seq: r.seq, Payload: fromSlave(r, []byte{200, 0, 0, 0, 1})}
		}, "exceeds the payload"},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			peer := masterWithPeer(t, nil)
			r, d := regionUpToExchange(t, x)
			mem := the().arena.Bytes()[:r.extent]
			before := bytes.Clone(mem)
			if err := peer.Send(c.craft(t, r)); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			err := r.Exchange(d)
			table.add("slave: "+c.name, err, time.Since(start))
			if err == nil {
				t.Fatal("the master accepted it")
			}
			if !strings.Contains(err.Error(), "node 1") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not name node 1 and %q", err, c.want)
			}
			if !bytes.Equal(mem, before) {
				t.Errorf("the arena was written: %d bytes differ", diffCount(mem, before))
			}
		})
	}

	// A slave that stalls in the middle of its delta's frame: a proxy
	// forwards half of the first large write and then nothing (the
	// connection stays open, heartbeats stop).
	t.Run("stalls_mid-frame", func(t *testing.T) {
		peer := masterWithPeer(t, func(addr string) string { return stallProxy(t, addr, 1024) })
		r, d := regionUpToExchange(t, x)
		mem := the().arena.Bytes()[:r.extent]
		before := bytes.Clone(mem)
		if err := peer.Send(transport.Message{Kind: wire.Delta, Seq: r.seq, Payload: fromSlave(r, encodeEnvelope(t, honestDelta(x, r.seq, 1, 1), nil))}); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		done := make(chan error, 1)
		go func() { done <- r.Exchange(d) }()
		var err error
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("Exchange still blocked 10s after the slave stalled (peer timeout 1s)")
		}
		took := time.Since(start)
		table.add("slave stalls mid-frame", err, took)
		if err == nil || !strings.Contains(err.Error(), "node 1") || !errors.Is(err, transport.ErrPeerTimeout) {
			t.Errorf("error %v: want a peer timeout naming node 1", err)
		}
		if !bytes.Equal(mem, before) {
			t.Errorf("the arena was written: %d bytes differ", diffCount(mem, before))
		}
	})
}

// TestHostileMaster plays a master that sends a slave merged deltas no
// honest master sends: the slave's Exchange must refuse each, naming the
// master, without writing the arena.
func TestHostileMaster(t *testing.T) {
	var table hostileTable
	defer table.log(t)
	x := Make[int64](8192)
	sumResult := []byte{8, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8} // one well-formed int64 value
	cases := []struct {
		name  string
		craft func(t *testing.T, r *Region) []byte
		want  string
	}{
		{"merged delta for another region", func(t *testing.T, r *Region) []byte {
			return encodeEnvelope(t, honestDelta(x, r.seq+1, delta.Merged, 0), sumResult)
		}, "labelled region"},
		{"run past the arena extent", func(t *testing.T, r *Region) []byte {
			d := honestDelta(x, r.seq, delta.Merged, 0)
			delta.AppendFull(d, uint64(r.extent)+8, []byte("past"))
			return encodeEnvelope(t, d, sumResult)
		}, "does not fit"},
		{"values list that does not match", func(t *testing.T, r *Region) []byte {
			return encodeEnvelope(t, honestDelta(x, r.seq, delta.Merged, 0), []byte{1, 0, 0, 0, 7})
		}, "values from the master"}, // a 1-byte result for an int64 sum
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			peer := slaveWithPeer(t)
			r, d := regionUpToExchange(t, x)
			mem := the().arena.Bytes()[:r.extent]
			before := bytes.Clone(mem)
			if err := peer.Send(1, transport.Message{Kind: wire.Merged, Seq: r.seq, Payload: c.craft(t, r)}); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			err := r.Exchange(d)
			table.add("master: "+c.name, err, time.Since(start))
			if err == nil {
				t.Fatal("the slave accepted it")
			}
			if !strings.Contains(err.Error(), "master") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not name the master and %q", err, c.want)
			}
			if !bytes.Equal(mem, before) {
				t.Errorf("the arena was written: %d bytes differ", diffCount(mem, before))
			}
		})
	}
}

// TestOversizedDeltaRefusedBeforeAllocating forges an envelope whose delta
// header declares a terabyte of payload (checksums right): the runtime's
// open must refuse it, naming the limit, without allocating anything like
// it.
func TestOversizedDeltaRefusedBeforeAllocating(t *testing.T) {
	var table hostileTable
	defer table.log(t)
	r := &Region{n: &node{}, extent: 1 << 20, seq: 1}
	d := &delta.Delta{}
	d.Reset(1, 1)
	delta.AppendFull(d, 0, []byte("x"))
	p := encodeEnvelope(t, d, nil)
	h := p[4 : 4+52]
	binary.LittleEndian.PutUint64(h[32:], 1<<40) // payload length P
	binary.LittleEndian.PutUint32(h[48:], crc32.Checksum(h[:48], crc32.MakeTable(crc32.Castagnoli)))
	reseal(p[4:])
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	start := time.Now()
	_, _, err := wire.OpenEnvelope(p, r.limits())
	took := time.Since(start)
	runtime.ReadMemStats(&m1)
	table.add("delta declaring 1 TiB for a 1 MiB extent", err, took)
	if !errors.Is(err, delta.ErrTooLarge) {
		t.Fatalf("open: %v, want ErrTooLarge", err)
	}
	if got := m1.TotalAlloc - m0.TotalAlloc; got > 1<<20 {
		t.Errorf("open allocated %d bytes before refusing", got)
	}
}

// diffCount is how many bytes of a and b differ (arena.Diff's count).
func diffCount(a, b []byte) int {
	_, n := arena.Diff(a, b)
	return n
}

// stallProxy forwards one connection to target; in the direction towards
// target it forwards half of the first read larger than threshold, then
// nothing more, keeping both connections open until the test ends.
func stallProxy(t *testing.T, target string, threshold int) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	var mu sync.Mutex
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		in, err := ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", target)
		if err != nil {
			in.Close()
			return
		}
		mu.Lock()
		conns = append(conns, in, out)
		mu.Unlock()
		wg.Add(1)
		go func() { defer wg.Done(); _, _ = io.Copy(in, out) }()
		buf := make([]byte, 64<<10)
		stalled := false
		for {
			n, err := in.Read(buf)
			if n > 0 && !stalled {
				if n > threshold {
					n, stalled = n/2, true
				}
				if _, err := out.Write(buf[:n]); err != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return ln.Addr().String()
}

// TestArenaExhaustedNamesTypeSizeAndKnob asks for more than the arena
// holds: the error must name the element type, the size asked for and the
// knobs (--arena-size, CAPE_ARENA_SIZE) with a value that would fit the
// request. (Make ends the node with it: TestArenaTooSmall.)
func TestArenaExhaustedNamesTypeSizeAndKnob(t *testing.T) {
	var table hostileTable
	defer table.log(t)
	a, err := sharedArena()
	if err != nil {
		t.Fatal(err)
	}
	n := 4 * a.Size() / 8 // int64s: four times the arena
	start := time.Now()
	_, err = Alloc[int64](n)
	table.add(fmt.Sprintf("cape.Make[int64](%d) in a %d GiB arena", n, a.Size()>>30), err, time.Since(start))
	var ae *AllocError
	if !errors.As(err, &ae) {
		t.Fatalf("Alloc: %v, want an *AllocError", err)
	}
	msg := err.Error()
	for _, want := range []string{"int64", strconv.Itoa(n), strconv.Itoa(8 * n), "CAPE_ARENA_SIZE", "arena exhausted"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not mention %q", msg, want)
		}
	}
	m := regexp.MustCompile(`CAPE_ARENA_SIZE=(\d+)G`).FindStringSubmatch(msg)
	if m == nil {
		t.Fatalf("error %q suggests no size", msg)
	}
	if g, _ := strconv.Atoi(m[1]); g<<30 < a.Used()+8*n {
		t.Errorf("suggested %sG does not fit %d bytes", m[1], a.Used()+8*n)
	}
	if !strings.Contains(msg, "--arena-size ") {
		t.Errorf("error %q does not name cape run's --arena-size", msg)
	}
}
