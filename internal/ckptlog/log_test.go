package ckptlog

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func testRegion(seq uint64) *Region {
	return &Region{Seq: seq, Name: fmt.Sprintf("main.go:%d:2", seq), EntryHash: seq * 77, Extent: 4096,
		Nodes:  []Counts{{0, 0, 10}, {100, 50, 20}},
		Values: []byte{byte(seq), 1, 2}, Runs: []Run{{Off: 8, Data: bytes.Repeat([]byte{byte(seq)}, int(seq)*3)}, {Off: 4096, Data: []byte{9}}}}
}

func regionFrame(r *Region) []byte { return AppendRegion(Frame(KindRegion, 0), r) }

// writeLog writes a log of k regions through a Writer and returns its bytes.
func writeLog(t *testing.T, dir string, k int) []byte {
	t.Helper()
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	w, err := d.Create(Header{ArenaBase: 1 << 40, ArenaSize: 1 << 30, PageSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= k; i++ {
		if err := w.AppendRegion(testRegion(uint64(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, LogName))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestWriteScanRead(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ck")
	b := writeLog(t, dir, 5)
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.Scan(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	if s.End != int64(len(b)) || s.Last() != 5 || s.Why != "" || s.Header.PageSize != 4096 {
		t.Fatalf("scan: end %d of %d, last %d, why %q, header %+v", s.End, len(b), s.Last(), s.Why, s.Header)
	}
	rd, err := d.OpenReader()
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	for i, e := range s.Entries {
		p, err := rd.Payload(e)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ParseRegion(p)
		if err != nil {
			t.Fatal(err)
		}
		if want := testRegion(uint64(i + 1)); !reflect.DeepEqual(r, want) {
			t.Fatalf("record %d: %+v, want %+v", i+1, r, want)
		}
	}
	// Appending after the prefix continues the numbering.
	w, err := d.Append(s.End)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(regionFrame(testRegion(6))); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = d.Scan(1 << 20); err != nil || s.Last() != 6 {
		t.Fatalf("after append: %+v, %v", s, err)
	}
}

// TestTornTail cuts the log at every byte and flips every byte: the scan
// keeps exactly the frames that end before the damage.
func TestTornTail(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ck")
	b := writeLog(t, dir, 4)
	key, err := loadKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	full, err := ScanLog(bytes.NewReader(b), int64(len(b)), 1<<20, key)
	if err != nil {
		t.Fatal(err)
	}
	ends := []int64{}
	off := int64(0)
	// The header frame, then each entry.
	ends = append(ends, frameHead+HeaderSize)
	for _, e := range full.Entries {
		off = e.Off + e.Len
		ends = append(ends, off)
	}
	want := func(cut int64) (n int, end int64) {
		for i, e := range ends {
			if e <= cut {
				n, end = i, e
			}
		}
		return n, end
	}
	for cut := int64(frameHead + HeaderSize); cut <= int64(len(b)); cut++ {
		s, err := ScanLog(bytes.NewReader(b[:cut]), cut, 1<<20, key)
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		n, end := want(cut)
		if len(s.Entries) != n || s.End != end || (end < cut) != (s.Why != "") {
			t.Fatalf("cut at %d: %d entries ending at %d (%q), want %d ending at %d", cut, len(s.Entries), s.End, s.Why, n, end)
		}
	}
	for i := frameHead + HeaderSize; i < len(b); i++ {
		c := bytes.Clone(b)
		c[i] ^= 0x40
		s, err := ScanLog(bytes.NewReader(c), int64(len(c)), 1<<20, key)
		if err != nil {
			t.Fatalf("flip at %d: %v", i, err)
		}
		n, _ := want(int64(i))
		if len(s.Entries) != n || s.End > int64(i) {
			t.Fatalf("flip at %d: %d entries ending at %d, want %d", i, len(s.Entries), s.End, n)
		}
	}
	if _, err := ScanLog(bytes.NewReader([]byte("not a log at all, not at all")), 28, 1<<20, key); err == nil {
		t.Fatal("garbage scanned as a log")
	}
}

func TestAppendTruncatesTornTail(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ck")
	b := writeLog(t, dir, 3)
	name := filepath.Join(dir, LogName)
	if err := os.WriteFile(name, append(b, "torn"...), 0o600); err != nil {
		t.Fatal(err)
	}
	d, _ := OpenDir(dir)
	s, err := d.Scan(1 << 20)
	if err != nil || s.Size != int64(len(b))+4 || s.End != int64(len(b)) {
		t.Fatalf("scan: %+v, %v", s, err)
	}
	w, err := d.Append(s.End)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(regionFrame(testRegion(4))); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = d.Scan(1 << 20)
	if err != nil || s.Last() != 4 || s.End != s.Size {
		t.Fatalf("after append: %+v, %v", s, err)
	}
}

func TestReplace(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ck")
	writeLog(t, dir, 3)
	d, _ := OpenDir(dir)
	s, _ := d.Scan(1 << 20)
	w, err := d.Append(s.End)
	if err != nil {
		t.Fatal(err)
	}
	im := &Image{Seq: 3, Point: "main.go:9:3", Alloc: []byte{1}, Table: []byte{7, 8}, Vars: []byte{2, 3}, Memory: make([]byte, 4096)}
	hdr := AppendHeader(Frame(KindHeader, 20), s.Header)
	if err := w.Replace(hdr, AppendImage(Frame(KindImage, 0), im)); err != nil {
		t.Fatal(err)
	}
	if err := w.Append(regionFrame(testRegion(4))); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	size, peak, _, _ := w.Stats()
	s, err = d.Scan(1 << 20)
	if err != nil || len(s.Entries) != 2 || s.Entries[0].Kind != KindImage || s.Last() != 4 || s.Size != size || peak < size {
		t.Fatalf("after replace: %+v, %v (size %d, peak %d)", s, err, size, peak)
	}
	rd, _ := d.OpenReader()
	defer rd.Close()
	p, _ := rd.Payload(s.Entries[0])
	got, err := ParseImage(p)
	if err != nil || !reflect.DeepEqual(got, im) {
		t.Fatalf("image: %+v, %v", got, err)
	}
}

func TestOpenDirRefusesShared(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no modes on windows")
	}
	dir := filepath.Join(t.TempDir(), "ck")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenDir(dir); !errors.Is(err, ErrUnsafeDir) {
		t.Fatalf("0755 directory: %v, want ErrUnsafeDir", err)
	}
	os.Chmod(dir, 0o700)
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(d.Path()); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("mode %v, %v", fi.Mode(), err)
	}
	os.WriteFile(filepath.Join(dir, LogName), nil, 0o644)
	os.Chmod(filepath.Join(dir, LogName), 0o644)
	if _, err := OpenDir(dir); !errors.Is(err, ErrUnsafeDir) {
		t.Fatalf("0644 log: %v, want ErrUnsafeDir", err)
	}
	fresh := filepath.Join(t.TempDir(), "new")
	if _, err := OpenDir(fresh); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(fresh); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("created with mode %v, %v", fi.Mode(), err)
	}
}

// TestHeaderVersions: a header round-trips, and the 20- and 52-byte
// headers of earlier versions parse with the fields they lack zero.
func TestHeaderVersions(t *testing.T) {
	h := Header{ArenaBase: 1 << 40, ArenaSize: 1 << 30, PageSize: 4096, Program: [32]byte{1}, Args: [32]byte{2}, Start: 3}
	p := AppendHeader(nil, h)
	if len(p) != HeaderSize {
		t.Fatalf("header of %d bytes", len(p))
	}
	for _, c := range []struct {
		n    int
		want Header
	}{
		{HeaderSize, h},
		{52, Header{ArenaBase: h.ArenaBase, ArenaSize: h.ArenaSize, PageSize: h.PageSize, Program: h.Program}},
		{20, Header{ArenaBase: h.ArenaBase, ArenaSize: h.ArenaSize, PageSize: h.PageSize}},
	} {
		got, err := ParseHeader(p[:c.n])
		if err != nil || got != c.want {
			t.Errorf("%d bytes: %+v, %v; want %+v", c.n, got, err, c.want)
		}
	}
	if _, err := ParseHeader(p[:60]); err == nil {
		t.Error("a header of 60 bytes parsed")
	}
}

// TestLockOneJob: a second lock of a directory held by a job is refused,
// naming the holder's process; once released it is granted.
func TestLockOneJob(t *testing.T) {
	d, err := OpenDir(filepath.Join(t.TempDir(), "ck"))
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Lock(); runtime.GOOS != "windows" && (err == nil || !strings.Contains(err.Error(), fmt.Sprintf("in use by another job (process %d", os.Getpid()))) {
		t.Fatalf("a second lock: %v", err)
	}
	unlock()
	unlock, err = d.Lock()
	if err != nil {
		t.Fatalf("the lock after its release: %v", err)
	}
	unlock()
}
