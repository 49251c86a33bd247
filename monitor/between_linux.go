//go:build linux

package monitor

// WatchBetween implements Watcher.
func (u *uffdTracker) WatchBetween() { u.watch = true }

// Between implements Watcher.
func (u *uffdTracker) Between() Between { return u.betw }

// startBetween begins what Start learns of the pages changed since the
// previous Start: the pages below armed are known (written pages are
// reported by the scans, those a compared region changed by pending), the
// others not. The scans of startArmed and startPlain and the fault probe
// add theirs.
func (u *uffdTracker) startBetween() {
	b := &u.betw
	b.Starts, b.tracked, b.on = u.starts+1, 0, u.watch
	b.written = b.written[:0]
	if u.watch && u.starts > 0 {
		b.tracked = u.armed / u.pageSize
		for _, p := range u.pending {
			b.add(p, p+1)
		}
	}
}

// plainBetween is startPlain's part of Between: it scans the pages a
// previous armed region leaves armed, before startPlain disarms them.
// After a plain region nothing is armed and nothing is known: comparing
// the extent with the twins to tell would cost more than the copy it
// replaces.
func (u *uffdTracker) plainBetween() error {
	if !u.watch || u.armed == 0 {
		return nil
	}
	return u.scan(0, u.armed, false, u.betw.add)
}
