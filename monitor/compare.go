package monitor

import (
	"errors"
	"fmt"
)

// compareTracker is the compare backend and, with complete set, the complete
// backend. It is not safe for concurrent use.
//
// Start copies [0, extent) into the twin; Stop compares memory with the twin
// page by page (compare) or reports every page below extent (complete).
type compareTracker struct {
	mem      []byte
	pageSize int
	complete bool

	twin    *twin // nil until the first Start
	extent  int   // extent of the last Start
	started bool  // between Start and Stop
	closed  bool
	dirty   []int // result of the last Stop, reused
}

func newCompare(mem []byte, pageSize int, complete bool) (*compareTracker, error) {
	return &compareTracker{mem: mem, pageSize: pageSize, complete: complete}, nil
}

func (c *compareTracker) Name() string {
	if c.complete {
		return BackendComplete
	}
	return BackendCompare
}

func (c *compareTracker) PageSize() int { return c.pageSize }

func (c *compareTracker) Start(extent int) error {
	switch {
	case c.closed:
		return fmt.Errorf("start: %w", ErrClosed)
	case c.started:
		return fmt.Errorf("start: %w: region already started", ErrState)
	}
	if err := checkExtent(extent, len(c.mem), c.pageSize); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	if c.twin == nil {
		tw, err := newTwin(len(c.mem))
		if err != nil {
			return fmt.Errorf("start: %w", err)
		}
		c.twin = tw
	}
	copyParallel(c.twin.buf[:extent], c.mem[:extent])
	c.extent = extent
	c.started = true
	return nil
}

func (c *compareTracker) Stop() ([]int, error) {
	switch {
	case c.closed:
		return nil, fmt.Errorf("stop: %w", ErrClosed)
	case !c.started:
		return nil, fmt.Errorf("stop: %w: no region started", ErrState)
	}
	c.started = false
	n := c.extent / c.pageSize
	c.dirty = c.dirty[:0]
	if c.complete {
		for p := range n {
			c.dirty = append(c.dirty, p)
		}
		return c.dirty, nil
	}
	c.dirty = diffParallel(c.dirty, c.mem, c.twin.buf, c.pageSize, 0, n)
	return c.dirty, nil
}

func (c *compareTracker) Twin(p int) []byte {
	if c.closed || c.twin == nil || p < 0 || p >= c.extent/c.pageSize {
		return nil
	}
	off := p * c.pageSize
	return c.twin.buf[off : off+c.pageSize : off+c.pageSize]
}

func (c *compareTracker) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	var errs []error
	if c.twin != nil {
		errs = append(errs, c.twin.release())
		c.twin = nil
	}
	return errors.Join(errs...)
}
