package ckptlog

import (
	"bufio"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// Entry locates one valid record of a scanned log.
type Entry struct {
	Kind Kind
	Seq  uint64 // a region's number, or the regions an image covers
	Off  int64  // offset of the payload in the file
	Len  int64  // payload length
}

// Scan is the intact prefix of a log.
type Scan struct {
	Header  Header
	Entries []Entry // after the header: at most one image, first, then regions in order
	End     int64   // end of the intact prefix: where the next frame goes
	Size    int64   // the file's size; Size > End means a torn tail
	// Why says why the scan stopped before Size ("" when End == Size).
	Why string
}

// Last is the number of the last region the log holds (0 if none).
func (s *Scan) Last() uint64 {
	if len(s.Entries) == 0 {
		return 0
	}
	return s.Entries[len(s.Entries)-1].Seq
}

// ScanLog reads a log of size bytes from r and returns its intact prefix:
// the frames up to the first one that is incomplete, fails its checksum, or
// breaks the order (a header first, then at most one image, then regions
// numbered consecutively from the image's number plus one, or from 1).
// limit bounds a payload's length. An empty log (size 0) has no header and
// End 0. The error is reserved for a failing reader, a log whose first
// frame is not an intact header while size > 0 (not a CAPE log), and a
// frame whose checksum matches but whose MAC under key does not (ErrAltered:
// a crash tears frames, it does not forge checksums).
func ScanLog(r io.Reader, size, limit int64, key Key) (*Scan, error) {
	s := &Scan{Size: size}
	if size == 0 {
		return s, nil
	}
	if err := s.scanFrom(r, 0, 1, limit, key); err != nil {
		return nil, err
	}
	if s.End == 0 {
		return nil, fmt.Errorf("not a CAPE checkpoint log: %s", s.Why)
	}
	return s, nil
}

// scanFrom scans the frames of r, which starts at offset start of the log
// (the end of the intact prefix so far), up to s.Size; next is the number
// of the next region record.
func (s *Scan) scanFrom(r io.Reader, start int64, next uint64, limit int64, key Key) error {
	size := s.Size
	s.Why = ""
	br := bufio.NewReaderSize(r, 1<<20)
	var head [frameHead]byte
	var buf []byte
	for off := start; ; {
		if size-off < frameHead {
			if size > off {
				s.Why = fmt.Sprintf("incomplete frame head at offset %d", off)
			}
			break
		}
		if _, err := io.ReadFull(br, head[:]); err != nil {
			return fmt.Errorf("read log at offset %d: %w", off, err)
		}
		h, err := parseHead(head[:], limit)
		if err == nil && int64(h.n) > size-off-frameHead {
			err = fmt.Errorf("frame of %d bytes, %d left in the file", h.n, size-off-frameHead)
		}
		if err != nil {
			s.Why = fmt.Sprintf("frame at offset %d: %v", off, err)
			break
		}
		first, ok, err := readPayload(br, head[:], h, &buf, key)
		if err != nil {
			return fmt.Errorf("read log at offset %d: %w", off, err)
		}
		if !ok {
			s.Why = fmt.Sprintf("frame at offset %d: checksum mismatch", off)
			break
		}
		e := Entry{Kind: h.kind, Off: off + frameHead, Len: int64(h.n)}
		if why := s.admit(&e, first, &next); why != "" {
			if off == 0 {
				return errors.New("not a CAPE checkpoint log: " + why)
			}
			s.Why = fmt.Sprintf("frame at offset %d: %s", off, why)
			break
		}
		off += frameHead + int64(h.n)
		s.End = off
	}
	return nil
}

// readPayload reads h.n payload bytes, checks the checksum (ok) and, if it
// matches, the MAC (an error wrapping ErrAltered if not), and returns the
// payload's first bytes (a header's whole payload, else up to 8: the
// sequence number). buf is scratch space.
func readPayload(br *bufio.Reader, head []byte, h frameHeader, buf *[]byte, key Key) (first []byte, ok bool, err error) {
	sum := crc32.Update(0, castagnoli, head[:16])
	sum = crc32.Update(sum, castagnoli, head[20:frameHead])
	m := hmac.New(sha256.New, key)
	m.Write(head[:16])
	if cap(*buf) < 64<<10 {
		*buf = make([]byte, 64<<10)
	}
	b := (*buf)[:cap(*buf)]
	var firstBuf [HeaderSize]byte // enough for a header, and the start of any other frame
	got := 0
	for left := int64(h.n); left > 0; {
		k := int(min(left, int64(len(b))))
		if _, err := io.ReadFull(br, b[:k]); err != nil {
			return nil, false, err
		}
		if got < len(firstBuf) {
			got += copy(firstBuf[got:], b[:k])
		}
		sum = crc32.Update(sum, castagnoli, b[:k])
		m.Write(b[:k])
		left -= int64(k)
	}
	if sum != h.sum {
		return nil, false, nil
	}
	if !hmac.Equal(m.Sum(nil), h.mac[:]) {
		return nil, false, errAltered
	}
	return firstBuf[:got], true, nil
}

// errAltered is the error of a frame whose MAC does not match.
var errAltered = fmt.Errorf("%w: a frame's checksum matches but its MAC does not (the log was changed by someone without its key, or its key file was replaced); refused", ErrAltered)

// admit checks a valid frame's place in the log and fills e.Seq and, for
// the header, s.Header; it returns why the frame does not belong, or "".
func (s *Scan) admit(e *Entry, first []byte, next *uint64) string {
	isFirst := s.End == 0
	switch e.Kind {
	case KindHeader:
		if !isFirst {
			return "a second header"
		}
		h, err := ParseHeader(first[:min(len(first), int(e.Len))])
		if err != nil || !headerSize(uint64(e.Len)) {
			return "malformed header"
		}
		s.Header = h
		return ""
	case KindImage:
		if isFirst {
			return "no header"
		}
		if len(s.Entries) != 0 || len(first) < 8 {
			return "an image that does not follow the header"
		}
		e.Seq = binary.LittleEndian.Uint64(first)
		*next = e.Seq + 1
	case KindRegion:
		if isFirst {
			return "no header"
		}
		if len(first) < 8 {
			return "a region record of fewer than 8 bytes"
		}
		e.Seq = binary.LittleEndian.Uint64(first)
		if e.Seq != *next {
			return fmt.Sprintf("region #%d where #%d comes next", e.Seq, *next)
		}
		*next++
	}
	s.Entries = append(s.Entries, *e)
	return ""
}
