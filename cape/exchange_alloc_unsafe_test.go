//go:build !race

package cape

import (
	"testing"
	"unsafe"

	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/transport"
)

// regionDriver runs regions on this process as the master of a 2-node job
// against a slave played by the test (peer): the master writes its static
// block of xs, the slave every other int64 of its own block.
type regionDriver struct {
	tb    testing.TB
	peer  *transport.Slave
	xs    []int64
	base  uint64
	env   wire.OutEnvelope
	peerD delta.Delta
}

// region runs one region: the master's template and exchange, the slave's
// delta sent and the merged delta received.
func (g *regionDriver) region() {
	r := Begin("allocs")
	if err := r.Start(); err != nil {
		g.tb.Fatal(err)
	}
	lo, hi := r.Static(len(g.xs))
	for i := lo; i < hi; i++ {
		g.xs[i]++
	}
	d, err := r.Create()
	if err != nil {
		g.tb.Fatal(err)
	}
	if err := r.Stop(); err != nil {
		g.tb.Fatal(err)
	}
	g.peerD.Reset(r.seq, 1)
	lo, hi = block(len(g.xs), 1, 2)
	for i := lo; i < hi; i += 2 {
		g.xs[i]++
		delta.AppendFull(&g.peerD, g.base+uint64(i)*8, unsafe.Slice((*byte)(unsafe.Pointer(&g.xs[i])), 8))
	}
	bufs, err := g.env.BuildAfter(wire.AppendExtent(nil, r.extent/r.n.arena.PageSize()), &g.peerD, nil, delta.None)
	if err != nil {
		g.tb.Fatal(err)
	}
	if err := g.peer.SendBuffers(wire.Delta, r.seq, bufs); err != nil {
		g.tb.Fatal(err)
	}
	if err := r.Exchange(d); err != nil {
		g.tb.Fatal(err)
	}
	msg, err := g.peer.Recv()
	if err != nil {
		g.tb.Fatal(err)
	}
	g.peer.Release(msg.Payload)
}

// TestExchangeAllocations counts the allocations of a whole region (the
// master's template and exchange, the transport on both sides, the test's
// slave): once the buffers have grown they must not depend on the size of
// the deltas, and stay few.
func TestExchangeAllocations(t *testing.T) {
	peer := masterWithPeer(t, nil)
	const small, large = 64, 64 << 10
	x := Make[int64](large)
	perRegion := func(count int) float64 {
		g := &regionDriver{tb: t, peer: peer, xs: x[:count], base: uint64(arenaOffset(x))}
		g.region()
		return testing.AllocsPerRun(20, g.region)
	}
	a, b := perRegion(small), perRegion(large)
	t.Logf("allocations per region: %v with %d int64, %v with %d", a, small, b, large)
	if b > a {
		t.Errorf("a region with %d int64 allocates %v times, more than %v with %d: the exchange allocates per run or per byte", large, b, a, small)
	}
	if a > maxRegionAllocs {
		t.Errorf("a region allocates %v times, want at most %d", a, maxRegionAllocs)
	}
}

// maxRegionAllocs bounds the allocations of a region (see
// TestExchangeAllocations): the Region that Begin returns. Deltas,
// envelopes, Gather's table and received payloads are reused.
const maxRegionAllocs = 1

// BenchmarkRegion times a region on the master of a 2-node job in this
// process (the slave played by the benchmark, over loopback TCP), with 64
// int64 written (the fixed cost) and with 64 Ki int64, the slave writing
// every other int64 of its half.
func BenchmarkRegion(b *testing.B) {
	for _, count := range []int{64, 64 << 10} {
		b.Run(map[int]string{64: "64int64", 64 << 10: "64Kint64"}[count], func(b *testing.B) {
			peer := masterWithPeer(b, nil)
			x := Make[int64](count)
			g := &regionDriver{tb: b, peer: peer, xs: x, base: uint64(arenaOffset(x))}
			g.region()
			b.ReportAllocs()
			b.SetBytes(int64(count * 8))
			for b.Loop() {
				g.region()
			}
		})
	}
}
