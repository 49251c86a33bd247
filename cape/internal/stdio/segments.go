package stdio

import (
	"encoding/binary"
	"fmt"
	"io"
	"slices"
)

// A region's output travels as a piece of segments, one per unit that
// printed: the unit's first iteration (int64, little-endian; -1 for what
// was printed before any unit), the byte count (uint32) and the bytes.
const segHeader = 12

// AppendSegment appends one unit's output to dst: lo is the unit's first
// iteration (-1 before any unit), b what it printed.
func AppendSegment(dst []byte, lo int, b []byte) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, uint64(int64(lo)))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(b)))
	return append(dst, b...)
}

// Segment is one unit's output, as received: a plain value, whose bytes
// stay valid as long as the piece they were parsed from.
type Segment struct {
	Lo   int64  // the unit's first iteration, -1 before any unit
	Rank int    // the node that printed it
	B    []byte // the bytes, aliasing the piece they were parsed from
}

// ParseSegments appends the segments of an encoded piece from rank to
// segs, checking every length against the piece; it refuses a truncated
// header, a count beyond the piece and a unit below -1.
func ParseSegments(segs []Segment, p []byte, rank int) ([]Segment, error) {
	for len(p) > 0 {
		if len(p) < segHeader {
			return segs, fmt.Errorf("output of node %d: truncated segment header", rank)
		}
		lo := int64(binary.LittleEndian.Uint64(p))
		l := binary.LittleEndian.Uint32(p[8:])
		if uint64(l) > uint64(len(p)-segHeader) {
			return segs, fmt.Errorf("output of node %d: segment of %d bytes exceeds the %d left", rank, l, len(p)-segHeader)
		}
		if lo < -1 {
			return segs, fmt.Errorf("output of node %d: segment of unit %d", rank, lo)
		}
		segs = append(segs, Segment{Lo: lo, Rank: rank, B: p[segHeader : segHeader+l]})
		p = p[segHeader+l:]
	}
	return segs, nil
}

// Order returns the segments of every node's piece (outs, by rank; nil
// where a node printed nothing) in iteration order, a unit's segments in
// the order of their nodes' ranks and, within a node, as written.
func Order(outs [][]byte) ([]Segment, error) {
	var segs []Segment
	var err error
	for rank, p := range outs {
		if segs, err = ParseSegments(segs, p, rank); err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(segs, func(a, b Segment) int {
		if a.Lo != b.Lo {
			if a.Lo < b.Lo {
				return -1
			}
			return 1
		}
		return a.Rank - b.Rank
	})
	return segs, nil
}

// WriteOrdered writes the output of every node's units to w in iteration
// order (see Order) and returns it as one piece for the log (nil when no
// node printed anything). Nothing is written if a piece is malformed.
func WriteOrdered(w io.Writer, outs [][]byte) ([]byte, error) {
	segs, err := Order(outs)
	if err != nil || len(segs) == 0 {
		return nil, err
	}
	var text, piece []byte
	for _, s := range segs {
		text = append(text, s.B...)
		piece = AppendSegment(piece, int(s.Lo), s.B)
	}
	if _, err := w.Write(text); err != nil {
		return nil, fmt.Errorf("write the region's output: %w", err)
	}
	return piece, nil
}

// WriteLogged writes a replayed region's logged piece to w, in its
// order. Nothing is written if the piece is malformed.
func WriteLogged(w io.Writer, piece []byte) error {
	segs, err := ParseSegments(nil, piece, 0)
	if err != nil {
		return err
	}
	for _, s := range segs {
		if _, err := w.Write(s.B); err != nil {
			return fmt.Errorf("write the region's output: %w", err)
		}
	}
	return nil
}
