package ckptlog

import (
	"path/filepath"
	"testing"
	"time"
)

// TestHoldSupersedes appends records faster than the hold rate, then
// replaces the log: the records held when the compaction was queued are
// dropped unwritten, and the log is the compaction's frames and the record
// appended after it, all authentic. With NoHold, every record is written.
func TestHoldSupersedes(t *testing.T) {
	defer func(r float64) { holdRate = r }(holdRate)
	holdRate = 1 // any rate is fast
	for _, noHold := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "ck")
		d, err := OpenDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		h := Header{ArenaBase: 1 << 40, ArenaSize: 1 << 30, PageSize: 4096}
		w, err := d.Create(h)
		if err != nil {
			t.Fatal(err)
		}
		if noHold {
			w.NoHold()
		}
		seq := uint64(0)
		for start := time.Now(); time.Since(start) < 400*time.Millisecond; time.Sleep(5 * time.Millisecond) {
			seq++
			if err := w.AppendRegion(testRegion(seq)); err != nil {
				t.Fatal(err)
			}
		}
		im := &Image{Seq: seq, Point: "main.go:1:1", Memory: []byte{1, 2, 3}}
		if err := w.Replace(AppendHeader(Frame(KindHeader, 20), h), AppendImage(Frame(KindImage, 0), im)); err != nil {
			t.Fatal(err)
		}
		if err := w.AppendRegion(testRegion(seq + 1)); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if got := w.Superseded(); (got > 0) == noHold {
			t.Fatalf("NoHold %v: %d of %d records superseded", noHold, got, seq)
		}
		s, err := d.Scan(1 << 20)
		if err != nil || len(s.Entries) != 2 || s.Entries[0].Kind != KindImage || s.Last() != seq+1 || s.End != s.Size {
			t.Fatalf("NoHold %v: log after the compaction: %+v, %v", noHold, s, err)
		}
		t.Logf("NoHold %v: %d of %d records superseded", noHold, w.Superseded(), seq)
	}
}
