package transport

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"testing"
)

var benchSizes = []int{1 << 20, 64 << 20}

func sizeName(n int) string { return fmt.Sprintf("%dMiB", n>>20) }

// BenchmarkSendRecv measures one message from a slave to the master over
// loopback: authenticated, chunked, received into a fresh buffer.
func BenchmarkSendRecv(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(sizeName(size), func(b *testing.B) {
			cfg := testConfig(2)
			m, slaves := startJob(b, cfg, nil)
			p := payload(size, 1)
			start, done := make(chan struct{}), make(chan error)
			defer close(start)
			go func() {
				for range start {
					done <- slaves[1].Send(Message{Kind: 16, Payload: p})
				}
			}()
			b.SetBytes(int64(size))
			b.ReportAllocs()
			defer reportCPU(b)()
			for b.Loop() {
				start <- struct{}{}
				msg, err := m.Recv(1)
				if err != nil || len(msg.Payload) != size {
					b.Fatal(err)
				}
				if err := <-done; err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRawTCP sends the same bytes over a plain loopback TCP connection
// with an 8-byte length prefix: the baseline of BenchmarkSendRecv. "reuse"
// receives into one buffer (hand-written message passing); "alloc" into a
// fresh one per message, as Recv does.
func BenchmarkRawTCP(b *testing.B) {
	for _, size := range benchSizes {
		for _, fresh := range []bool{false, true} {
			name := sizeName(size) + "/reuse"
			if fresh {
				name = sizeName(size) + "/alloc"
			}
			b.Run(name, func(b *testing.B) {
				w, r := tcpPair(b)
				p := payload(size, 1)
				buf := make([]byte, size)
				start, done := make(chan struct{}), make(chan error)
				defer close(start)
				go func() {
					var hdr [8]byte
					for range start {
						binary.BigEndian.PutUint64(hdr[:], uint64(len(p)))
						bufs := net.Buffers{hdr[:], p}
						_, err := bufs.WriteTo(w)
						done <- err
					}
				}()
				b.SetBytes(int64(size))
				b.ReportAllocs()
				defer reportCPU(b)()
				var hdr [8]byte
				for b.Loop() {
					start <- struct{}{}
					if _, err := io.ReadFull(r, hdr[:]); err != nil {
						b.Fatal(err)
					}
					n := binary.BigEndian.Uint64(hdr[:])
					if fresh {
						buf = make([]byte, n)
					}
					if _, err := io.ReadFull(r, buf[:n]); err != nil {
						b.Fatal(err)
					}
					if err := <-done; err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// reportCPU reports the process's CPU time per operation (both ends of the
// connection run in this process), steadier than wall time on a shared
// machine. Call it before the loop and defer the result.
func reportCPU(b *testing.B) func() {
	start := processCPU()
	return func() {
		if b.N > 0 && start > 0 {
			b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}
