package ckptlog

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFollow follows a log while it grows: Poll finds the records appended
// since, leaves a half-written frame for later, and rescans a log that a
// compaction replaced.
func TestFollow(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ck")
	writeLog(t, dir, 2)
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fl, err := d.Follow(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	if fl.Scan().Last() != 2 {
		t.Fatalf("followed log holds %d regions, want 2", fl.Scan().Last())
	}
	f, err := os.OpenFile(filepath.Join(dir, LogName), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	third, fourth := regionFrame(testRegion(3)), regionFrame(testRegion(4))
	sealInPlace(third, d.key)
	sealInPlace(fourth, d.key)
	if _, err := f.Write(append(third, fourth[:len(fourth)/2]...)); err != nil {
		t.Fatal(err)
	}
	if replaced, err := fl.Poll(); err != nil || replaced || fl.Scan().Last() != 3 {
		t.Fatalf("after one and a half records: %v %v, last %d, want 3 (%s)", replaced, err, fl.Scan().Last(), fl.Scan().Why)
	}
	if _, err := f.Write(fourth[len(fourth)/2:]); err != nil {
		t.Fatal(err)
	}
	if _, err := fl.Poll(); err != nil || fl.Scan().Last() != 4 {
		t.Fatalf("after the rest of record 4: %v, last %d, want 4", err, fl.Scan().Last())
	}
	p, err := fl.PayloadInto(nil, fl.Scan().Entries[3])
	if r, perr := ParseRegion(p); err != nil || perr != nil || r.Seq != 4 {
		t.Fatalf("record 4: %v %v", err, perr)
	}
	b, _ := os.ReadFile(filepath.Join(dir, LogName))
	tmp := filepath.Join(dir, "new")
	if err := os.WriteFile(tmp, b[:len(b)-len(fourth)], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, LogName)); err != nil {
		t.Fatal(err)
	}
	if replaced, err := fl.Poll(); err != nil || !replaced || fl.Scan().Last() != 3 {
		t.Fatalf("after a replacement: %v %v, last %d, want 3", replaced, err, fl.Scan().Last())
	}
}
