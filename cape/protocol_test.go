package cape

import (
	"bytes"
	"errors"
	"testing"

	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/transport"
)

// FuzzProtocol feeds arbitrary messages to the checks and decoders the
// runtime uses (protocol.go's names for internal/wire's, and its mapping
// of the job-ending kinds to ErrJobDone, ErrJobAborted and ErrLeft), as a
// peer that holds the token could send them: no panic;
// a message of another region or an unexpected kind is refused; a chunk is
// accepted only inside the loop and re-encodes to the same bytes; an
// envelope is accepted only if its delta applies to the region's extent and
// its values list holds exactly the values registered.
func FuzzProtocol(f *testing.F) {
	const extent, seq, count = 1 << 14, 7, 1000
	d := &delta.Delta{}
	d.Reset(seq, 1)
	delta.AppendFull(d, 100, []byte("node 1 wrote this"))
	env, err := wire.AppendEnvelope(nil, d, []byte{2, 0, 0, 0, 9, 9}, delta.None)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(wire.Delta, uint64(seq), env, 1)
	f.Add(wire.Merged, uint64(seq), env, 1)
	f.Add(wire.Chunk, uint64(seq), wire.ChunkPayload(10, 20), 0)
	f.Add(wire.Chunk, uint64(seq), wire.ChunkPayload(count, count), 0)
	f.Add(wire.Abort, uint64(seq), []byte("node 2 failed"), 0)
	f.Add(wire.Done, uint64(seq+1), []byte(nil), 0)
	f.Add(wire.ChunkReq, uint64(seq-1), []byte(nil), 3)
	f.Fuzz(func(t *testing.T, kind uint8, s uint64, p []byte, nvals int) {
		msg := transport.Message{Kind: kind, Seq: s, Payload: p}
		nvals = int(uint(nvals) % 4)
		for _, want := range []uint8{wire.Merged, wire.Chunk} {
			err := fromMaster(msg, want, seq)
			switch {
			case kind == wire.Done && !errors.Is(err, ErrJobDone),
				kind == wire.Abort && !errors.Is(err, ErrJobAborted):
				t.Fatalf("kind %d from the master: %v", kind, err)
			case err == nil && (kind != want || s != seq):
				t.Fatalf("accepted kind %d region #%d when waiting for kind %d of #%d", kind, s, want, seq)
			}
		}
		for _, dyn := range []bool{false, true} {
			err := wire.FromSlave(msg, 1, seq, dyn, wire.Delta)
			ok := s == seq && (kind == wire.Delta || dyn && kind == wire.ChunkReq)
			if (err == nil) != ok {
				t.Fatalf("wire.FromSlave(kind %d, region #%d, dynamic %v) = %v", kind, s, dyn, err)
			}
		}
		if lo, hi, err := wire.ParseChunk(p, count); err == nil {
			if lo < 0 || lo > hi || hi > count || !bytes.Equal(wire.ChunkPayload(lo, hi), p) {
				t.Fatalf("wire.ParseChunk(%x) = [%d, %d)", p, lo, hi)
			}
		}
		vals, d, err := wire.OpenEnvelope(p, delta.Limits{MaxBytes: extent, MaxRuns: extent/2 + 1, ArenaSize: extent})
		if err != nil {
			return
		}
		if err := d.Apply(make([]byte, extent)); err != nil {
			t.Fatalf("accepted a delta that does not apply to the extent: %v", err)
		}
		if pieces, err := wire.Unpack(vals, nvals); err == nil && len(pieces) != nvals {
			t.Fatalf("unpack gave %d values, want %d", len(pieces), nvals)
		}
		again, err := wire.AppendEnvelope(nil, d, vals, delta.None)
		if err != nil {
			t.Fatalf("re-encoding an accepted envelope: %v", err)
		}
		if v2, d2, err := wire.OpenEnvelope(again, delta.Limits{MaxBytes: extent, MaxRuns: extent/2 + 1, ArenaSize: extent}); err != nil ||
			!bytes.Equal(v2, vals) || d2.Len() != d.Len() || len(d2.Runs) != len(d.Runs) {
			t.Fatalf("an accepted envelope does not survive re-encoding: %v", err)
		}
	})
}
