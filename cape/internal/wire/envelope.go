package wire

import (
	"encoding/binary"
	"fmt"

	"github.com/cape-go/cape/delta"
)

// AppendEnvelope appends the envelope of vals and d, compressed as c, to dst.
func AppendEnvelope(dst []byte, d *delta.Delta, vals []byte, c delta.Compression) ([]byte, error) {
	return d.AppendBinary(appendPiece(dst, vals), c)
}

// OutEnvelope is an envelope to send by reference: its pieces, in order,
// are the values list and the delta's header and table (in head), the
// delta's run data (aliasing the delta) and the trailer. It is reused from
// one region to the next. It is not safe for concurrent use.
type OutEnvelope struct {
	head  []byte
	bufs  [][]byte
	trail [4]byte
}

// Build makes e the envelope of vals and d, compressed as c, and returns
// its pieces. Uncompressed, the run data is not copied: the pieces are
// valid while d's runs are, and until the next Build. Compressed, the
// envelope is one piece.
func (e *OutEnvelope) Build(d *delta.Delta, vals []byte, c delta.Compression) ([][]byte, error) {
	return e.BuildAfter(nil, d, vals, c)
}

// BuildAfter is Build with prefix sent before the envelope, in its first
// piece (a slave's delta message starts with its extent: AppendExtent).
func (e *OutEnvelope) BuildAfter(prefix []byte, d *delta.Delta, vals []byte, c delta.Compression) ([][]byte, error) {
	clear(e.bufs) // do not pin the last region's data
	e.head = appendPiece(append(e.head[:0], prefix...), vals)
	if c != delta.None {
		var err error
		if e.head, err = d.AppendBinary(e.head, c); err != nil {
			return nil, err
		}
		e.bufs = append(e.bufs[:0], e.head)
		return e.bufs, nil
	}
	head, bufs, trail, err := d.AppendBinaryVec(e.head, append(e.bufs[:0], nil))
	if err != nil {
		return nil, err
	}
	e.head, e.trail = head, trail
	bufs[0] = e.head
	e.bufs = append(bufs, e.trail[:])
	return e.bufs, nil
}

// Len returns the bytes of the envelope Build last made, its pieces
// together.
func (e *OutEnvelope) Len() int {
	n := 0
	for _, b := range e.bufs {
		n += len(b)
	}
	return n
}

// AppendExtent appends the pages of arena a node had in use at a region's
// start, which a slave's delta message and notice start with (every node's
// are the same where their sequential code did the same).
func AppendExtent(dst []byte, pages int) []byte {
	return binary.LittleEndian.AppendUint32(dst, uint32(pages))
}

// SplitExtent reads the extent a slave's delta message or notice starts
// with, and returns what follows it.
func SplitExtent(p []byte) (pages int, rest []byte, err error) {
	if len(p) < 4 {
		return 0, nil, fmt.Errorf("%d bytes, too short for the arena's extent", len(p))
	}
	return int(binary.LittleEndian.Uint32(p)), p[4:], nil
}

// OpenEnvelope splits an envelope into its values list (aliasing p) and
// its delta, decoded under lim.
func OpenEnvelope(p []byte, lim delta.Limits) (vals []byte, d *delta.Delta, err error) {
	d = new(delta.Delta)
	vals, err = OpenEnvelopeRef(p, d, lim)
	if err != nil {
		return nil, nil, err
	}
	return vals, d, nil
}

// OpenEnvelopeRef is OpenEnvelope into d, whose runs then alias p (unless
// the delta is compressed): p must stay unchanged while d is used.
func OpenEnvelopeRef(p []byte, d *delta.Delta, lim delta.Limits) (vals []byte, err error) {
	if len(p) < 4 {
		return nil, fmt.Errorf("payload of %d bytes is too short", len(p))
	}
	nv := binary.LittleEndian.Uint32(p)
	if uint64(nv) > uint64(len(p)-4) {
		return nil, fmt.Errorf("values length %d exceeds the payload", nv)
	}
	vals = p[4 : 4+nv]
	return vals, delta.DecodeRef(d, p[4+nv:], lim)
}

// OpenLabelled is OpenEnvelopeRef followed by CheckLabel: the envelope p
// of a delta that came for region seq and node (a rank, or delta.Merged).
// On an error, vals is nil.
func OpenLabelled(p []byte, d *delta.Delta, lim delta.Limits, seq uint64, node int) (vals []byte, err error) {
	vals, err = OpenEnvelopeRef(p, d, lim)
	if err == nil {
		err = CheckLabel(d, seq, node)
	}
	if err != nil {
		return nil, err
	}
	return vals, nil
}

// CheckLabel checks that a decoded delta is labelled with the region and
// node it came for.
func CheckLabel(d *delta.Delta, seq uint64, node int) error {
	if d.Region != seq || d.Node != node {
		return fmt.Errorf("delta is labelled region #%d node %d", d.Region, d.Node)
	}
	return nil
}

// Pack concatenates the length-prefixed pieces of vals: a values list.
func Pack[T any](piece func(T) []byte, vals []T) []byte {
	var out []byte
	for _, v := range vals {
		out = appendPiece(out, piece(v))
	}
	return out
}

// PackValues is Pack of vals followed, when out is not empty, by out as
// one more piece: the region's values and the output its units printed, as
// UnpackValues splits them.
func PackValues[T any](piece func(T) []byte, vals []T, out []byte) []byte {
	b := Pack(piece, vals)
	if len(out) > 0 {
		b = appendPiece(b, out)
	}
	return b
}

// appendPiece appends p, length-prefixed: a piece of a values list, or an
// envelope's values list.
func appendPiece(dst, p []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(p)))
	return append(dst, p...)
}

// UnpackValues splits a node's values list into the n registered values
// and, when there is one more piece, the output its units printed. The
// pieces alias b.
func UnpackValues(b []byte, n int) (vals [][]byte, out []byte, err error) {
	vals, err = Unpack(b, n+1)
	switch {
	case err == nil:
		return vals[:n], vals[n], nil
	case vals != nil && len(vals) == n:
		return vals, nil, nil // the n values and no output
	}
	// A malformed list (Unpack returned no pieces), or a count that is
	// neither n nor n+1: with no values registered, too.
	return nil, nil, err
}

// Unpack splits a values list into exactly n pieces (aliasing b); when it
// finds fewer, it returns them with its error.
func Unpack(b []byte, n int) ([][]byte, error) {
	out := make([][]byte, 0, n)
	for len(b) > 0 {
		if len(b) < 4 {
			return nil, errTruncatedValues
		}
		l := binary.LittleEndian.Uint32(b)
		if uint64(l) > uint64(len(b)-4) {
			return nil, fmt.Errorf("value of %d bytes exceeds the list", l)
		}
		if len(out) == n {
			return nil, fmt.Errorf("more than the %d values this node registered", n)
		}
		out = append(out, b[4:4+l])
		b = b[4+l:]
	}
	if len(out) != n {
		return out, fmt.Errorf("%d values received, this node registered %d", len(out), n)
	}
	return out, nil
}
