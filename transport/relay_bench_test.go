package transport

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkBroadcast measures one broadcast of a merged delta (8 MiB) to
// every slave on loopback, by scheme and node count: ns/op is until every
// slave has the payload (each acknowledges with a small message), and
// master-ms/op is the time the master spends in Broadcast, the cost the
// star makes grow with the nodes.
//
//	go test ./transport -run '^$' -bench Broadcast -benchtime 5x
func BenchmarkBroadcast(b *testing.B) {
	const size = 8 << 20
	payload := make([]byte, size)
	for i := range payload {
		payload[i] = byte(i * 131)
	}
	for _, scheme := range []string{BroadcastStar, BroadcastTree, BroadcastChain, BroadcastAuto} {
		for _, nodes := range []int{2, 4, 8, 16} {
			b.Run(fmt.Sprintf("%s/nodes=%d", scheme, nodes), func(b *testing.B) {
				cfg := testConfig(nodes)
				cfg.Broadcast = scheme
				cfg.PeerTimeout, cfg.IOTimeout = 30*time.Second, 30*time.Second
				m, slaves := startJob(b, cfg, nil)
				if err := m.RelayErr(); err != nil {
					b.Fatal(err)
				}
				for _, s := range slaves[1:] {
					go func() {
						for {
							msg, err := s.Recv()
							if err != nil || len(msg.Payload) != size {
								return
							}
							if s.Send(Message{Kind: 17, Seq: msg.Seq}) != nil {
								return
							}
						}
					}()
				}
				b.SetBytes(size)
				b.ResetTimer()
				var inMaster time.Duration
				for i := 0; b.Loop(); i++ {
					t0 := time.Now()
					if err := m.Broadcast(Message{Kind: 16, Seq: uint64(i), Payload: payload}); err != nil {
						b.Fatal(err)
					}
					inMaster += time.Since(t0)
					if _, err := m.Gather(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(inMaster.Microseconds())/1e3/float64(b.N), "master-ms/op")
			})
		}
	}
}
