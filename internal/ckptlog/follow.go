package ckptlog

import (
	"fmt"
	"io"
	"os"
)

// Follower reads a log that its writer is still appending to: a node that
// joins a running job replays the log as it grows. It is not safe for
// concurrent use.
type Follower struct {
	d     *Dir
	f     *os.File
	s     *Scan
	limit int64
}

// Follow opens the directory's log for following and scans its intact
// prefix; limit bounds a payload's length (see ScanLog).
func (d *Dir) Follow(limit int64) (*Follower, error) {
	fl := &Follower{d: d, limit: limit}
	if err := fl.reopen(); err != nil {
		return nil, err
	}
	return fl, nil
}

func (fl *Follower) reopen() error {
	f, err := os.Open(fl.d.log())
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err == nil {
		var s *Scan
		if s, err = ScanLog(f, fi.Size(), fl.limit, fl.d.key); err == nil {
			if fl.f != nil {
				fl.f.Close()
			}
			fl.f, fl.s = f, s
			return nil
		}
	}
	f.Close()
	return fmt.Errorf("%s: %w", fl.d.log(), err)
}

// Scan returns the log's intact prefix as last scanned.
func (fl *Follower) Scan() *Scan { return fl.s }

// Poll scans what the writer appended since the last scan (a frame still
// being written is left for a later Poll). When the log was replaced (a
// compaction renamed a new file over it) it scans the new file from its
// start and reports replaced.
func (fl *Follower) Poll() (replaced bool, err error) {
	cur, err1 := fl.f.Stat()
	now, err2 := os.Stat(fl.d.log())
	if err1 != nil || err2 != nil {
		return false, fmt.Errorf("follow the log: %v %v", err1, err2)
	}
	if !os.SameFile(cur, now) {
		return true, fl.reopen()
	}
	s := fl.s
	if cur.Size() <= s.End {
		return false, nil
	}
	next := uint64(1)
	if len(s.Entries) > 0 {
		next = s.Last() + 1
	}
	s.Size = cur.Size()
	if err := s.scanFrom(io.NewSectionReader(fl.f, s.End, s.Size-s.End), s.End, next, fl.limit, fl.d.key); err != nil {
		return false, fmt.Errorf("follow the log: %w", err)
	}
	return false, nil
}

// PayloadInto reads e's payload as Reader.PayloadInto does.
func (fl *Follower) PayloadInto(buf []byte, e Entry) ([]byte, error) {
	return (&Reader{f: fl.f, key: fl.d.key}).PayloadInto(buf, e)
}

// Close closes the followed file.
func (fl *Follower) Close() error { return fl.f.Close() }
