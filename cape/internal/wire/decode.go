package wire

import (
	"encoding/binary"
	"fmt"

	"github.com/cape-go/cape/delta"
)

// Limits is what a receiver knows that a payload is checked against,
// beyond its shape. Each kind reads the fields its payload needs.
type Limits struct {
	Delta delta.Limits // delta, merged: the bounds of the arena the delta applies to
	Count int          // chunk: the loop's iterations
	// live: the live set replaced, the first rank a joining node may hold
	// (≤ 0: none), and how many may join.
	Prev           []int
	First, Joiners int
	ImageVars      int // image: the bytes of the point's variables
	// notice, collect, runs, release (homes): the arena's pages and page
	// size, and the job's nodes.
	Pages, PageSize, Nodes int
}

// A Payload is a decoded message payload: Append re-encodes it.
type Payload interface {
	Append(dst []byte) ([]byte, error)
}

// Envelope is a delta or merged payload: the values list and the delta.
type Envelope struct {
	Values []byte
	Delta  *delta.Delta
}

// Append appends the envelope, its delta uncompressed.
func (e Envelope) Append(dst []byte) ([]byte, error) {
	return AppendEnvelope(dst, e.Delta, e.Values, delta.None)
}

// Raw is a payload of bytes taken as they are (a reason, input bytes).
type Raw []byte

func (r Raw) Append(dst []byte) ([]byte, error) { return append(dst, r...), nil }

// Empty is a payload of no bytes.
type Empty struct{}

func (Empty) Append(dst []byte) ([]byte, error) { return dst, nil }

// Range is a chunk payload: [Lo, Hi).
type Range struct{ Lo, Hi int }

func (r Range) Append(dst []byte) ([]byte, error) {
	return append(dst, ChunkPayload(r.Lo, r.Hi)...), nil
}

// LiveSet is a live payload.
type LiveSet []int

func (l LiveSet) Append(dst []byte) ([]byte, error) { return append(dst, LivePayload(l)...), nil }

func (r ReplayPlan) Append(dst []byte) ([]byte, error) { return AppendReplay(dst, r), nil }

// ImageMsg is an image payload.
type ImageMsg struct {
	Seq                        uint64
	Alloc, Table, Vars, Memory []byte
}

func (m ImageMsg) Append(dst []byte) ([]byte, error) { return AppendImage(dst, m), nil }

// U64 is a payload of one number (join, stdinEnd, stdinAck).
type U64 uint64

func (u U64) Append(dst []byte) ([]byte, error) {
	return binary.LittleEndian.AppendUint64(dst, uint64(u)), nil
}

// Hello is a lazyHello payload.
type Hello bool

func (h Hello) Append(dst []byte) ([]byte, error) {
	return append(dst, LazyHelloPayload(bool(h))...), nil
}

// LazySetup is a lazyInfo payload.
type LazySetup struct {
	On   bool
	Port int
}

func (s LazySetup) Append(dst []byte) ([]byte, error) {
	return append(dst, LazyInfoPayload(s.On, s.Port)...), nil
}

// StdinSetup is a stdinInfo payload.
type StdinSetup struct {
	Mode uint8
	Port int
}

func (s StdinSetup) Append(dst []byte) ([]byte, error) {
	return append(dst, StdinInfoPayload(s.Mode, s.Port)...), nil
}

// The decoders of the Kinds table.

// DeltaMsg is a slave's delta message: its extent, then its envelope.
type DeltaMsg struct {
	Extent int // pages of arena in use at the region's start
	Env    Envelope
}

func (m DeltaMsg) Append(dst []byte) ([]byte, error) {
	return m.Env.Append(AppendExtent(dst, m.Extent))
}

func decodeDeltaMsg(p []byte, lim *Limits) (Payload, error) {
	extent, rest, err := SplitExtent(p)
	if err != nil {
		return nil, err
	}
	env, err := decodeEnvelope(rest, lim)
	if err != nil {
		return nil, err
	}
	return DeltaMsg{Extent: extent, Env: env.(Envelope)}, nil
}

func decodeEnvelope(p []byte, lim *Limits) (Payload, error) {
	vals, d, err := OpenEnvelope(p, lim.Delta)
	if err != nil {
		return nil, err
	}
	return Envelope{Values: vals, Delta: d}, nil
}

func decodeEmpty(p []byte, _ *Limits) (Payload, error) {
	if len(p) != 0 {
		return nil, fmt.Errorf("payload of %d bytes, want none", len(p))
	}
	return Empty{}, nil
}

func decodeText(p []byte, _ *Limits) (Payload, error) { return Raw(p), nil }

func decodeChunk(p []byte, lim *Limits) (Payload, error) {
	lo, hi, err := ParseChunk(p, lim.Count)
	return Range{lo, hi}, err
}

func decodeLive(p []byte, lim *Limits) (Payload, error) {
	live, err := ParseLive(p, lim.Prev, lim.First, lim.Joiners)
	return LiveSet(live), err
}

func decodeReplay(p []byte, _ *Limits) (Payload, error) { return ParseReplay(p) }

func decodeImage(p []byte, lim *Limits) (Payload, error) {
	return ParseImage(p, lim.ImageVars)
}

func decodeJoin(p []byte, _ *Limits) (Payload, error) {
	k, err := ParseJoin(p)
	return U64(k), err
}

func decodeU64(p []byte, _ *Limits) (Payload, error) {
	v, err := parseU64(p, "number")
	return U64(v), err
}

func decodeLazyHello(p []byte, _ *Limits) (Payload, error) {
	ok, err := ParseLazyHello(p)
	return Hello(ok), err
}

func decodeLazyInfo(p []byte, _ *Limits) (Payload, error) {
	on, port, err := ParseLazyInfo(p)
	return LazySetup{on, port}, err
}

func decodeStdinInfo(p []byte, _ *Limits) (Payload, error) {
	mode, port, err := ParseStdinInfo(p)
	return StdinSetup{mode, port}, err
}
