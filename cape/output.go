package cape

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
)

// What a region's iterations print on standard output must appear once, in
// the order a sequential run prints it, although each node runs some of
// the iterations and only the master's output is the job's. So while a
// multi-node region computes, every node's standard output (file
// descriptor 1) is redirected into a private capture file, and the offset
// in it is marked where each unit of work (block, chunk, section) begins.
// The bytes of each unit travel with the node's reduction values, tagged
// with the unit's first iteration; the master, which has every committed
// node's units (and re-runs those of lost nodes itself), writes them in
// iteration order when it combines the values, and logs them with the
// region (--checkpoint), so that a restart prints them again.
//
// Output written before the first unit (code the region runs on every
// node) is the master's alone. A nested region's output is its enclosing
// region's. Standard error is not captured: slaves' diagnostics are shown
// prefixed with their rank.

// outCapture is a node's capture of standard output during regions.
type outCapture struct {
	sys   outFile   // the capture file and the saved descriptor 1
	on    bool      // descriptor 1 is the capture file
	marks []outMark // where each unit began, in the order run
	buf   []byte    // the bytes read back at the end, reused
	piece []byte    // the encoded segments of the last region, reused
}

// outMark is the offset in the capture file where the unit whose first
// iteration is lo began (lo = -1: before any unit).
type outMark struct {
	lo  int
	off int64
}

// outFile is the platform's part: redirect, offset, read back, restore.
type outFile interface {
	redirect() error
	offset() (int64, error)
	restore() error
	readAll(dst []byte, n int64) ([]byte, error)
	reset() error
}

// begin redirects standard output into the capture file.
func (c *outCapture) begin() error {
	if c == nil || c.on {
		return nil
	}
	if err := c.sys.redirect(); err != nil {
		return fmt.Errorf("capture standard output: %w", err)
	}
	c.on = true
	c.marks = append(c.marks[:0], outMark{lo: -1})
	return nil
}

// mark records that the unit whose first iteration is lo begins here.
func (c *outCapture) mark(lo int) error {
	if c == nil || !c.on {
		return nil
	}
	off, err := c.sys.offset()
	if err != nil {
		return fmt.Errorf("capture standard output: %w", err)
	}
	c.marks = append(c.marks, outMark{lo: lo, off: off})
	return nil
}

// end restores standard output and returns the captured bytes as encoded
// segments (nil when nothing was written). keepFirst keeps the bytes
// written before the first unit. The result is valid until the next end.
func (c *outCapture) end(keepFirst bool) ([]byte, error) {
	if c == nil || !c.on {
		return nil, nil
	}
	c.on = false
	size, err := c.sys.offset()
	if err == nil {
		err = c.sys.restore()
	}
	if err != nil || size == 0 {
		return nil, wrapCapture(err)
	}
	if c.buf, err = c.sys.readAll(c.buf, size); err == nil {
		err = c.sys.reset()
	}
	if err != nil {
		return nil, wrapCapture(err)
	}
	c.piece = c.piece[:0]
	for i, m := range c.marks {
		stop := size
		if i+1 < len(c.marks) {
			stop = c.marks[i+1].off
		}
		if stop <= m.off || (m.lo < 0 && !keepFirst) {
			continue
		}
		c.piece = appendSegment(c.piece, m.lo, c.buf[m.off:stop])
	}
	if len(c.piece) == 0 {
		return nil, nil
	}
	return c.piece, nil
}

// discard ends a capture and drops what it holds (a --verify re-run's
// output, which the parallel run already printed).
func (c *outCapture) discard() error {
	if c == nil || !c.on {
		return nil
	}
	c.on = false
	return wrapCapture(errors.Join(c.sys.restore(), c.sys.reset()))
}

func wrapCapture(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("capture standard output: %w", err)
}

// appendSegment appends one unit's output: its first iteration (int64,
// -1 before any unit), the byte count (uint32) and the bytes.
func appendSegment(dst []byte, lo int, b []byte) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, uint64(int64(lo)))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(b)))
	return append(dst, b...)
}

// outSegment is one unit's output, as received.
type outSegment struct {
	lo   int64
	rank int
	b    []byte
}

// parseSegments appends the segments of an encoded piece from rank to
// segs, checking every length against the piece.
func parseSegments(segs []outSegment, p []byte, rank int) ([]outSegment, error) {
	for len(p) > 0 {
		if len(p) < 12 {
			return segs, fmt.Errorf("output of node %d: truncated segment header", rank)
		}
		lo := int64(binary.LittleEndian.Uint64(p))
		l := binary.LittleEndian.Uint32(p[8:])
		if uint64(l) > uint64(len(p)-12) {
			return segs, fmt.Errorf("output of node %d: segment of %d bytes exceeds the %d left", rank, l, len(p)-12)
		}
		if lo < -1 {
			return segs, fmt.Errorf("output of node %d: segment of unit %d", rank, lo)
		}
		segs = append(segs, outSegment{lo: lo, rank: rank, b: p[12 : 12+l]})
		p = p[12+l:]
	}
	return segs, nil
}

// orderOutput returns the output of every node's units in iteration order
// (a unit's output in the order its node wrote it), as one piece for the
// log, and writes it to standard output. outs are the nodes' output
// pieces, by rank (nil where a node printed nothing).
func orderOutput(outs [][]byte) ([]byte, error) {
	var segs []outSegment
	var err error
	for rank, p := range outs {
		if segs, err = parseSegments(segs, p, rank); err != nil {
			return nil, err
		}
	}
	if len(segs) == 0 {
		return nil, nil
	}
	slices.SortStableFunc(segs, func(a, b outSegment) int {
		if a.lo != b.lo {
			if a.lo < b.lo {
				return -1
			}
			return 1
		}
		return a.rank - b.rank
	})
	var text, piece []byte
	for _, s := range segs {
		text = append(text, s.b...)
		piece = appendSegment(piece, int(s.lo), s.b)
	}
	if _, err := os.Stdout.Write(text); err != nil {
		return nil, fmt.Errorf("write the region's output: %w", err)
	}
	return piece, nil
}

// printLogged writes a replayed region's logged output.
func printLogged(piece []byte) error {
	segs, err := parseSegments(nil, piece, 0)
	if err != nil {
		return err
	}
	for _, s := range segs {
		if _, err := os.Stdout.Write(s.b); err != nil {
			return fmt.Errorf("write the region's output: %w", err)
		}
	}
	return nil
}

// captures reports whether this region's output is captured: a region
// split over several nodes, computing (not replayed from the log).
func (r *Region) captures() bool {
	return r.nested == nil && r.size > 1 && !r.replay && r.n.out != nil
}

// markUnit records the start of the unit [lo, …) in the output capture.
func (r *Region) markUnit(u unit, ok bool) (unit, bool) {
	if ok && r.nested == nil {
		if err := r.n.out.mark(u.lo); err != nil {
			fail(r.fail(err))
		}
	}
	return u, ok
}
