package transport

import (
	"encoding/binary"
	"io"
	"net"
	"testing"
)

// rttSize is the payload of the round-trip benchmarks: about a tiny
// region's delta with its header (bench/regions sends 320 bytes).
const rttSize = 320

// BenchmarkRoundTrip measures a small message from the master to a slave
// and back, as a region's exchange does it the other way round:
// authenticated frames, the slave in its own goroutine. Compare with
// BenchmarkRawRoundTrip, the same bytes with a length prefix on a plain
// loopback connection: the difference is what framing and authentication
// add to a region's round trip.
func BenchmarkRoundTrip(b *testing.B) {
	m, slaves := startJob(b, testConfig(2), nil)
	p := payload(rttSize, 1)
	done := make(chan error, 1)
	go func() {
		for {
			msg, err := slaves[1].Recv()
			if err != nil {
				done <- err
				return
			}
			if err := slaves[1].Send(Message{Kind: 17, Seq: msg.Seq, Payload: msg.Payload}); err != nil {
				done <- err
				return
			}
			slaves[1].Release(msg.Payload)
		}
	}()
	b.SetBytes(2 * rttSize)
	b.ReportAllocs()
	defer reportCPU(b)()
	seq := uint64(0)
	for b.Loop() {
		seq++
		if err := m.Send(1, Message{Kind: 16, Seq: seq, Payload: p}); err != nil {
			b.Fatal(err)
		}
		msg, err := m.Recv(1)
		if err != nil || len(msg.Payload) != rttSize || msg.Seq != seq {
			b.Fatalf("round trip %d: %d bytes, seq %d, %v", seq, len(msg.Payload), msg.Seq, err)
		}
		m.Release(1, msg.Payload)
	}
	select {
	case err := <-done:
		b.Fatalf("slave: %v", err)
	default:
	}
}

// BenchmarkRawRoundTrip is BenchmarkRoundTrip's baseline: rttSize bytes
// and an 8-byte length there and back over a plain loopback connection.
func BenchmarkRawRoundTrip(b *testing.B) {
	c, peer := tcpPair(b)
	go func() {
		buf := make([]byte, 8+rttSize)
		for {
			if _, err := io.ReadFull(peer, buf); err != nil {
				return
			}
			if _, err := peer.Write(buf); err != nil {
				return
			}
		}
	}()
	out, in := make([]byte, 8+rttSize), make([]byte, 8+rttSize)
	binary.BigEndian.PutUint64(out, rttSize)
	copy(out[8:], payload(rttSize, 1))
	b.SetBytes(2 * rttSize)
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if _, err := c.Write(out); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(c, in); err != nil {
			b.Fatal(err)
		}
	}
}

// tcpPair returns the two ends of a plain loopback TCP connection, closed
// by the test's cleanup.
func tcpPair(tb testing.TB) (dialed, accepted net.Conn) {
	tb.Helper()
	ln := listen(tb)
	acc := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		acc <- c
	}()
	dialed, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { dialed.Close() })
	if accepted = <-acc; accepted == nil {
		tb.Fatal("accept failed")
	}
	tb.Cleanup(func() { accepted.Close() })
	return dialed, accepted
}
