package monitor

import (
	"encoding/binary"
	"fmt"
	"io"
)

// The ptrace backend's node and helper talk over a stream socket in frames
// of little-endian uint64s. The node sends [op, arg]; the helper answers
// [code, n] followed by n uint64 page indices (codeOK, codeOverflow) or n
// bytes of message (codeError).
const (
	opStart uint64 = 1 + iota // arg: extent in bytes; answer: codeOK
	opStop                    // answer: the pages unprotected, in fault order, flagSpeculative set on those that did not fault
)

const (
	codeOK       uint64 = iota
	codeOverflow        // the pages below are only those caught before the per-page protection overflowed
	codeError           // the payload is a message
)

// flagSpeculative marks, in a codeOK or codeOverflow answer, a page that
// was unprotected with its block but did not fault: it may or may not have
// been written, and the node compares it with its twin.
const flagSpeculative = 1 << 62

// maxFrameWords bounds the payload of a frame read from the helper.
const maxFrameWords = 1 << 32

func writeWords(w io.Writer, words ...uint64) error {
	b := make([]byte, 8*len(words))
	for i, v := range words {
		binary.LittleEndian.PutUint64(b[8*i:], v)
	}
	_, err := w.Write(b)
	return err
}

func readWords(r io.Reader, dst []uint64) error {
	b := make([]byte, 8*len(dst))
	if _, err := io.ReadFull(r, b); err != nil {
		return err
	}
	for i := range dst {
		dst[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return nil
}

// readAnswer reads one answer; pages is reused for the page list.
func readAnswer(r io.Reader, pages []int) (code uint64, _ []int, err error) {
	var hdr [2]uint64
	if err := readWords(r, hdr[:]); err != nil {
		return 0, pages, err
	}
	code, n := hdr[0], hdr[1]
	if n > maxFrameWords {
		return 0, pages, fmt.Errorf("ptrace helper: frame of %d words", n)
	}
	if code == codeError {
		msg := make([]byte, n)
		if _, err := io.ReadFull(r, msg); err != nil {
			return 0, pages, err
		}
		return code, pages, fmt.Errorf("ptrace helper: %s", msg)
	}
	words := make([]uint64, n)
	if err := readWords(r, words); err != nil {
		return 0, pages, err
	}
	pages = pages[:0]
	for _, w := range words {
		pages = append(pages, int(w))
	}
	return code, pages, nil
}
