package stdio

import (
	"errors"
	"fmt"
)

// Capture is a node's capture of standard output during regions: while
// on, descriptor 1 is a private capture file, and Mark records where each
// unit of work begins. A nil *Capture captures nothing (the platform
// cannot, or the node needs none): its methods do nothing; NewCapture
// makes the others. It is not safe for concurrent use: the goroutine
// running the region uses it.
type Capture struct {
	sys   outFile // the capture file and the saved descriptor 1
	on    bool    // descriptor 1 is the capture file
	marks []mark  // where each unit began, in the order run
	buf   []byte  // the bytes read back at the end, reused
	piece []byte  // the encoded segments of the last region, reused
}

// mark is the offset in the capture file where the unit whose first
// iteration is lo began (lo = -1: before any unit).
type mark struct {
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

// Begin redirects standard output into the capture file (a capture
// already on stays as it is).
func (c *Capture) Begin() error {
	if c == nil || c.on {
		return nil
	}
	if err := c.sys.redirect(); err != nil {
		return fmt.Errorf("capture standard output: %w", err)
	}
	c.on = true
	c.marks = append(c.marks[:0], mark{lo: -1})
	return nil
}

// Mark records that the unit whose first iteration is lo begins here.
func (c *Capture) Mark(lo int) error {
	if c == nil || !c.on {
		return nil
	}
	off, err := c.sys.offset()
	if err != nil {
		return fmt.Errorf("capture standard output: %w", err)
	}
	c.marks = append(c.marks, mark{lo: lo, off: off})
	return nil
}

// End restores standard output and returns the captured bytes as encoded
// segments (nil when nothing was written), one per unit that printed, in
// the order run. keepFirst keeps the bytes written before the first unit.
// The result is valid until the next End.
func (c *Capture) End(keepFirst bool) ([]byte, error) {
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
		c.piece = AppendSegment(c.piece, m.lo, c.buf[m.off:stop])
	}
	if len(c.piece) == 0 {
		return nil, nil
	}
	return c.piece, nil
}

// Holds reports whether the capture is on and holds bytes: what the
// region's iterations printed so far on this node.
func (c *Capture) Holds() bool {
	if c == nil || !c.on {
		return false
	}
	off, err := c.sys.offset()
	return err == nil && off > 0
}

// Discard ends a capture and drops what it holds (a --verify re-run's
// output, which the parallel run already printed).
func (c *Capture) Discard() error {
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
