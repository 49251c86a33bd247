//go:build linux

package monitor

// WatchBetween implements Watcher.
func (u *uffdTracker) WatchBetween() { u.watch = true }

// Between implements Watcher.
func (u *uffdTracker) Between() Between { return u.betw }

// startBetween begins what Start learns of the pages changed since the
// previous Start: the pages below armed are known (written pages are
// reported by the scans, changed ones by pending), the others not yet. The
// scans of startArmed, the fault probe and startPlain add theirs.
func (u *uffdTracker) startBetween() {
	b := &u.betw
	b.Starts, b.tracked, b.on, b.compared = u.starts+1, 0, u.watch, false
	b.written = b.written[:0]
	if u.watch && u.starts > 0 {
		b.tracked = u.armed / u.pageSize
		for _, p := range u.pending {
			b.add(p, p+1)
		}
	}
}

// plainBetween is startPlain's part of Between: it scans the pages a
// previous armed region leaves armed before they are disarmed, or, after
// a plain region (nothing armed), it says the twins of the previous
// extent are its content at the previous Start, so that comparing with
// them tells what changed (diffWanted).
func (u *uffdTracker) plainBetween() (diffWanted bool, err error) {
	if !u.watch || u.starts == 0 {
		return false, nil
	}
	if u.armed > 0 {
		return false, u.scan(0, u.armed, false, u.betw.add)
	}
	u.betw.tracked, u.betw.compared = u.extent/u.pageSize, true
	return true, nil
}
