//go:build linux

package monitor

import "fmt"

// Watch implements Watcher: it write-protects the pages of runs that are
// not already tracked (those past armed), so that the next Start's scan
// tells those written.
func (u *uffdTracker) Watch(runs [][2]int) error {
	switch {
	case u.closed:
		return fmt.Errorf("watch: %w", ErrClosed)
	case u.started:
		return fmt.Errorf("watch: %w: inside a region", ErrState)
	}
	ps, n := u.pageSize, len(u.mem)/u.pageSize
	for _, r := range runs {
		lo, hi := max(r[0], u.armed/ps), min(r[1], n)
		if lo >= hi {
			continue
		}
		// Recorded first: whatever is armed, the next Start disarms it.
		u.watched = append(u.watched, [2]int{lo, hi})
		if err := u.writeProtect(lo*ps, hi*ps, true); err != nil {
			return fmt.Errorf("watch pages [%d, %d): %w", lo, hi, err)
		}
	}
	return nil
}

// Between implements Watcher. Its result is valid until the next Start.
func (u *uffdTracker) Between() Between { return u.betw }

// startBetween begins what Start learns of the writes made before it: the
// watched pages written, which it disarms (Start arms what its region
// needs). The scans of startArmed and the fault probe add theirs.
func (u *uffdTracker) startBetween() error {
	b := &u.betw
	b.Starts, b.tracked = u.starts+1, u.armed/u.pageSize
	b.written = b.written[:0]
	b.watched = append(b.watched[:0], u.watched...)
	ps := u.pageSize
	for len(u.watched) > 0 {
		r := u.watched[0]
		if err := u.scan(r[0]*ps, r[1]*ps, false, b.add); err != nil {
			return err
		}
		if err := u.writeProtect(r[0]*ps, r[1]*ps, false); err != nil {
			return err
		}
		u.watched = u.watched[1:]
	}
	u.watched = u.watched[:0]
	return nil
}
