package ckptlog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// reseal recomputes the checksum of the frame whose payload starts at off
// and is n bytes long, as someone who can write the log but has no key
// would after changing it.
func reseal(b []byte, off, n int64) {
	head := b[off-frameHead : off]
	sum := crc32.Update(0, castagnoli, head[:16])
	sum = crc32.Update(sum, castagnoli, head[20:frameHead])
	sum = crc32.Update(sum, castagnoli, b[off:off+n])
	binary.LittleEndian.PutUint32(head[16:], sum)
}

// TestMACRefusesAlteredFrame flips one byte of a region record and
// recomputes its CRC-32C: the scan refuses the log with ErrAltered (a crash
// tears frames, it does not forge checksums), where a flip alone only ends
// the intact prefix. A record changed after the scan is refused when it is
// read.
func TestMACRefusesAlteredFrame(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ck")
	b := writeLog(t, dir, 3)
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.Scan(1 << 20)
	if err != nil || s.Last() != 3 {
		t.Fatalf("scan: %+v, %v", s, err)
	}
	e := s.Entries[1]
	c := bytes.Clone(b)
	c[e.Off+e.Len-1] ^= 1
	if s, err := ScanLog(bytes.NewReader(c), int64(len(c)), 1<<20, d.key); err != nil || s.Last() != 1 {
		t.Fatalf("a flipped byte: %v, %d regions, want a torn tail after region 1", err, s.Last())
	}
	reseal(c, e.Off, e.Len)
	if _, err := ScanLog(bytes.NewReader(c), int64(len(c)), 1<<20, d.key); !errors.Is(err, ErrAltered) {
		t.Fatalf("a flipped byte with its CRC recomputed: %v, want ErrAltered", err)
	}
	other := Key(bytes.Repeat([]byte{1}, keySize))
	if _, err := ScanLog(bytes.NewReader(b), int64(len(b)), 1<<20, other); !errors.Is(err, ErrAltered) {
		t.Fatalf("a log read with another key: %v, want ErrAltered", err)
	}

	rd, err := d.OpenReader()
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	if _, err := rd.Payload(e); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, LogName), c, 0o600); err != nil {
		t.Fatal(err)
	}
	rd2, err := d.OpenReader()
	if err != nil {
		t.Fatal(err)
	}
	defer rd2.Close()
	if _, err := rd2.Payload(e); !errors.Is(err, ErrAltered) {
		t.Fatalf("a record altered after the scan was read: %v", err)
	}
}

// TestKeyFile checks the key file: created 0600 with 32 bytes, the same
// key on the next open, and refused when others may read it or it is a
// symbolic link.
func TestKeyFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ck")
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, KeyName)
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != keySize {
		t.Fatalf("key file: %v, %v", fi, err)
	}
	d2, err := OpenDir(dir)
	if err != nil || !bytes.Equal(d.key, d2.key) {
		t.Fatalf("reopened: %v, same key %v", err, bytes.Equal(d.key, d2.key))
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenDir(dir); !errors.Is(err, ErrUnsafeDir) {
		t.Fatalf("a key others may read: %v", err)
	}
	os.Remove(path)
	if err := os.Symlink(filepath.Join(t.TempDir(), "elsewhere"), path); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenDir(dir); !errors.Is(err, ErrUnsafeDir) {
		t.Fatalf("a key that is a symbolic link: %v", err)
	}
}

// TestKeyCreatedOnce: processes that open a new checkpoint directory at
// once (a restarted job's nodes) all read the one key that is created,
// never a partly written one.
func TestKeyCreatedOnce(t *testing.T) {
	for round := 0; round < 20; round++ {
		dir := t.TempDir()
		if err := os.Chmod(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		keys := make([]Key, 8)
		errs := make([]error, len(keys))
		var wg sync.WaitGroup
		for i := range keys {
			wg.Add(1)
			go func() {
				defer wg.Done()
				keys[i], errs[i] = loadKey(dir)
			}()
		}
		wg.Wait()
		for i := range keys {
			if errs[i] != nil {
				t.Fatalf("round %d, opener %d: %v", round, i, errs[i])
			}
			if !bytes.Equal(keys[i], keys[0]) {
				t.Fatalf("round %d: openers read different keys", round)
			}
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "."+KeyName+".*")); len(left) != 0 {
			t.Fatalf("temporary key files left: %v", left)
		}
	}
}
