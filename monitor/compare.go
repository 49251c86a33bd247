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
	trackerState
	complete bool

	twin  *twin // nil until the first Start
	dirty []int // result of the last Stop, reused
}

func newCompare(mem []byte, pageSize int, complete bool) (*compareTracker, error) {
	return &compareTracker{trackerState: trackerState{mem: mem, pageSize: pageSize}, complete: complete}, nil
}

func (c *compareTracker) Name() string {
	if c.complete {
		return BackendComplete
	}
	return BackendCompare
}

func (c *compareTracker) Start(extent int) error {
	if err := c.checkStart(extent); err != nil {
		return err
	}
	if c.twin == nil {
		tw, err := newTwin(len(c.mem))
		if err != nil {
			return fmt.Errorf("start: %w", err)
		}
		c.twin = tw
	}
	copyParallel(c.twin.buf[:extent], c.mem[:extent])
	c.enter(extent)
	return nil
}

func (c *compareTracker) Stop() ([]int, error) {
	if err := c.leave(); err != nil {
		return nil, err
	}
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
	off, ok := c.twinOffset(p)
	if !ok || c.twin == nil {
		return nil
	}
	return c.twin.buf[off : off+c.pageSize : off+c.pageSize]
}

func (c *compareTracker) Close() error {
	if !c.close() {
		return nil
	}
	var errs []error
	if c.twin != nil {
		errs = append(errs, c.twin.release())
		c.twin = nil
	}
	return errors.Join(errs...)
}
