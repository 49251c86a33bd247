package monitor

import "fmt"

// trackerState is the lifecycle every backend shares, and the checks of its
// transitions; each backend embeds it and does only its own work inside
// them:
//
//	idle ──Start──▶ in a region ──Stop──▶ idle ──Start──▶ …
//	any ──Close──▶ closed
//
// A backend's Start calls checkStart, does its work, and calls enter when it
// succeeded (a failed Start leaves the tracker idle). Its Stop calls leave
// first, which leaves the region even if the backend's work then fails, so
// the caller can Start again. Twin asks twinOffset, and Close asks close
// whether there is anything left to release. It is not safe for concurrent
// use, like the trackers.
type trackerState struct {
	mem      []byte // the whole tracked range
	pageSize int
	extent   int  // extent of the last successful Start
	started  bool // between Start and Stop
	closed   bool
}

// PageSize implements Tracker.
func (s *trackerState) PageSize() int { return s.pageSize }

// checkStart reports why Start(extent) may not run: after Close
// (ErrClosed), inside a region (ErrState), or for an invalid extent
// (ErrInvalidExtent).
func (s *trackerState) checkStart(extent int) error {
	switch {
	case s.closed:
		return fmt.Errorf("start: %w", ErrClosed)
	case s.started:
		return fmt.Errorf("start: %w: region already started", ErrState)
	}
	if err := checkExtent(extent, len(s.mem), s.pageSize); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	return nil
}

// enter records a successful Start of a region of extent bytes.
func (s *trackerState) enter(extent int) { s.extent, s.started = extent, true }

// leave leaves the region for Stop, or reports why Stop may not run: after
// Close (ErrClosed) or outside a region (ErrState).
func (s *trackerState) leave() error {
	switch {
	case s.closed:
		return fmt.Errorf("stop: %w", ErrClosed)
	case !s.started:
		return fmt.Errorf("stop: %w: no region started", ErrState)
	}
	s.started = false
	return nil
}

// twinOffset returns the offset of page p in the memory and its twin, and
// false when Twin(p) must return nil: after Close, or p not below the last
// Start's extent.
func (s *trackerState) twinOffset(p int) (int, bool) {
	if s.closed || p < 0 || p >= s.extent/s.pageSize {
		return 0, false
	}
	return p * s.pageSize, true
}

// close marks the tracker closed; it returns false if it already was (Close
// then has nothing to do).
func (s *trackerState) close() bool {
	if s.closed {
		return false
	}
	s.closed = true
	return true
}
