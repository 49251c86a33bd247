//go:build !race

package cape

import (
	"testing"
	"unsafe"

	"github.com/cape-go/cape/delta"
)

// TestExchangeAllocations runs regions on the master against a slave played
// by the test and counts the allocations of a whole region (the master's
// template and exchange, the transport on both sides, the test's slave):
// once the buffers have grown they must not depend on the size of the
// deltas, and stay few.
func TestExchangeAllocations(t *testing.T) {
	peer := masterWithPeer(t, nil)
	const small, large = 64, 64 << 10
	x := Make[int64](large)
	var (
		env   outEnvelope
		peerD delta.Delta
	)
	perRegion := func(count int) float64 {
		xs := x[:count]
		base := uint64(arenaOffset(xs))
		region := func() {
			r := Begin("allocs")
			if err := r.Start(); err != nil {
				t.Fatal(err)
			}
			lo, hi := r.Static(len(xs))
			for i := lo; i < hi; i++ {
				xs[i]++
			}
			d, err := r.Create()
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Stop(); err != nil {
				t.Fatal(err)
			}
			// The slave's delta: every other int64 of its block.
			peerD.Reset(r.seq, 1)
			lo, hi = block(len(xs), 1, 2)
			for i := lo; i < hi; i += 2 {
				xs[i]++
				delta.AppendFull(&peerD, base+uint64(i)*8, unsafe.Slice((*byte)(unsafe.Pointer(&xs[i])), 8))
			}
			bufs, err := env.build(&peerD, nil, delta.None)
			if err != nil {
				t.Fatal(err)
			}
			if err := peer.SendBuffers(kindDelta, r.seq, bufs); err != nil {
				t.Fatal(err)
			}
			if err := r.Exchange(d); err != nil {
				t.Fatal(err)
			}
			msg, err := peer.Recv()
			if err != nil {
				t.Fatal(err)
			}
			peer.Release(msg.Payload)
		}
		region()
		return testing.AllocsPerRun(20, region)
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
