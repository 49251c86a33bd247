package ckptlog

import (
	"bytes"
	"testing"
)

// testKey authenticates the logs the tests build by hand.
var testKey = Key(bytes.Repeat([]byte{7}, keySize))

// FuzzScanLog feeds arbitrary bytes to the scanner: it never panics, the
// prefix it keeps is made of frames that re-encode to the same bytes, and
// every region and image in it parses or is reported corrupt.
func FuzzScanLog(f *testing.F) {
	hdr := AppendFrame(nil, KindHeader, AppendHeader(nil, Header{ArenaBase: 1 << 40, ArenaSize: 1 << 30, PageSize: 4096, Program: [32]byte{7}}), testKey)
	log := bytes.Clone(hdr)
	for i := uint64(1); i <= 3; i++ {
		log = AppendFrame(log, KindRegion, AppendRegion(nil, testRegion(i)), testKey)
	}
	f.Add(log)
	f.Add(log[:len(log)-5])
	f.Add(hdr)
	f.Add(AppendFrame(bytes.Clone(hdr), KindImage, AppendImage(nil, &Image{Seq: 2, Point: "p", Memory: []byte{1, 2}}), testKey))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ScanLog(bytes.NewReader(b), int64(len(b)), 1<<16, testKey)
		if err != nil || len(b) == 0 {
			return
		}
		if s.End > int64(len(b)) || s.End < frameHead+20 {
			t.Fatalf("end %d of %d", s.End, len(b))
		}
		prev := uint64(0)
		for i, e := range s.Entries {
			p := b[e.Off : e.Off+e.Len]
			if !bytes.Equal(AppendFrame(nil, e.Kind, p, testKey), b[e.Off-frameHead:e.Off+e.Len]) {
				t.Fatalf("entry %d does not re-encode", i)
			}
			if i > 0 && e.Seq != prev+1 {
				t.Fatalf("entry %d: seq %d after %d", i, e.Seq, prev)
			}
			prev = e.Seq
			switch e.Kind {
			case KindRegion:
				if r, err := ParseRegion(p); err == nil {
					if !bytes.Equal(AppendRegion(nil, r), p) {
						t.Fatalf("region %d does not re-encode", e.Seq)
					}
				}
			case KindImage:
				if im, err := ParseImage(p); err == nil && !bytes.Equal(AppendImage(nil, im), p) {
					t.Fatalf("image does not re-encode")
				}
			default:
				t.Fatalf("entry %d of kind %d", i, e.Kind)
			}
		}
	})
}

// FuzzParseRecord feeds arbitrary payloads to the record parsers (the scan
// only hands them payloads whose checksum matches, which a mutated log
// rarely has): they never panic, and what they accept re-encodes to the
// same bytes.
func FuzzParseRecord(f *testing.F) {
	f.Add(AppendRegion(nil, testRegion(3)))
	f.Add(AppendRegion(nil, &Region{Seq: 1, Nodes: []Counts{{}}}))
	f.Add(AppendImage(nil, &Image{Seq: 2, Point: "main.go:9:3", Alloc: []byte{1}, Table: []byte{4}, Vars: []byte{2}, Memory: []byte{3, 4}}))
	f.Fuzz(func(t *testing.T, p []byte) {
		if r, err := ParseRegion(p); err == nil {
			if !bytes.Equal(AppendRegion(nil, r), p) || RecordSize(r) != int64(frameHead+len(p)) {
				t.Fatalf("region %+v does not re-encode", r)
			}
		}
		if im, err := ParseImage(p); err == nil && !bytes.Equal(AppendImage(nil, im), p) {
			t.Fatalf("image %+v does not re-encode", im)
		}
	})
}
