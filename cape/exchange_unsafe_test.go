package cape

import (
	"bytes"
	"encoding/binary"
	"testing"
	"unsafe"

	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/transport"
)

// int64Partial is a values list of one int64 reduction partial.
func int64Partial(v int64) []byte {
	p := binary.LittleEndian.AppendUint32(nil, 8)
	return binary.LittleEndian.AppendUint64(p, uint64(v))
}

// TestMasterSendsSlaveNoneOfItsBytes runs a region on the master against a
// slave played by the test, which writes the second half of an int64 slice
// and, in an 8-byte word it shares with the master, the upper half. The
// merged delta the slave receives must hold the master's writes only: no
// byte the slave wrote, and, in the shared word, just the master's half.
func TestMasterSendsSlaveNoneOfItsBytes(t *testing.T) {
	peer := masterWithPeer(t, nil)
	x := Make[int64](4096)
	w := Make[byte](8)
	r, d, sum := regionUpToCreate(t, "no-own-bytes", false, x, func(sum *int64, _, _ int) {
		*sum = 5
		copy(w[:4], "mast")
	})
	// The slave's delta: its block of x, and w's word with its upper half
	// written and the lower half carried along (as Diff makes it).
	own := honestDelta(x, r.seq, 1, 1)
	wOff := uint64(uintptr(unsafe.Pointer(&w[0])) - the().arena.Addr())
	delta.AppendFull(own, wOff, []byte{0, 0, 0, 0, 's', 'l', 'a', 'v'})
	if err := peer.Send(transport.Message{Kind: wire.Delta, Seq: r.seq, Payload: fromSlave(r, encodeEnvelope(t, own, int64Partial(3)))}); err != nil {
		t.Fatal(err)
	}
	if err := r.Exchange(d); err != nil {
		t.Fatal(err)
	}
	if *sum != 8 || string(w) != "mastslav" {
		t.Fatalf("master after the region: sum %d, w %q", *sum, w)
	}
	md := recvMerged(t, peer)
	// What the slave must receive: the master's block of x and "mast".
	want := honestDelta(x, r.seq, delta.Merged, 0)
	delta.AppendFull(want, wOff, []byte("mast"))
	if len(md.Runs) != len(want.Runs) {
		t.Fatalf("slave received %d runs (%d bytes), want %d (%d bytes)", len(md.Runs), md.Len(), len(want.Runs), want.Len())
	}
	for i := range md.Runs {
		if md.Runs[i].Off != want.Runs[i].Off || !bytes.Equal(md.Runs[i].Data, want.Runs[i].Data) {
			t.Fatalf("run %d: got %d bytes at %#x, want %d at %#x", i, len(md.Runs[i].Data), md.Runs[i].Off, len(want.Runs[i].Data), want.Runs[i].Off)
		}
	}
	if n := delta.Overlap(md.Runs, own.Runs); n != 4 {
		t.Errorf("%d bytes received where the slave's delta has runs, want 4 (the master's half of the shared word)", n)
	}
}

// TestLastRegionSendsSlavesValuesOnly runs the program's last region
// (Region.Last) on the master against a slave played by the test: the
// master's memory gets the slave's writes, and the slave, which leaves
// after the region, receives the reduction's result and no byte of memory.
func TestLastRegionSendsSlavesValuesOnly(t *testing.T) {
	peer := masterWithPeer(t, nil)
	x := Make[int64](4096)
	r, d, sum := regionUpToCreate(t, "last", true, x, func(sum *int64, _, _ int) { *sum = 5 })
	own := honestDelta(x, r.seq, 1, 1)
	if err := peer.Send(transport.Message{Kind: wire.Delta, Seq: r.seq, Payload: fromSlave(r, encodeEnvelope(t, own, int64Partial(3)))}); err != nil {
		t.Fatal(err)
	}
	if err := r.Exchange(d); err != nil {
		t.Fatal(err)
	}
	for i := range x {
		if x[i] != int64(i)*7+1 {
			t.Fatalf("master after the last region: x[%d] = %d, want %d", i, x[i], int64(i)*7+1)
		}
	}
	if *sum != 8 {
		t.Fatalf("master after the last region: sum %d, want 8", *sum)
	}
	md := recvMerged(t, peer)
	if len(md.Runs) != 0 {
		t.Errorf("the slave of the last region received %d runs (%d bytes), want none", len(md.Runs), md.Len())
	}
}

// recvMerged receives, as the slave, the master's merged envelope, checks
// that its values are the sum 8, and returns its delta.
func recvMerged(t *testing.T, peer *transport.Slave) *delta.Delta {
	t.Helper()
	msg, err := peer.Recv()
	if err != nil || msg.Kind != wire.Merged {
		t.Fatalf("slave received kind %d, err %v", msg.Kind, err)
	}
	vals, md, err := wire.OpenEnvelope(msg.Payload, delta.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(vals, int64Partial(8)) {
		t.Errorf("values % x, want the sum 8", vals)
	}
	return md
}
