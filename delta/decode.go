package delta

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/klauspost/compress/s2"
)

// Decode parses one encoding (see the package documentation) into a new
// delta that shares no memory with src. It validates the length, magic,
// version, checksums and every declared size against src and lim before it
// allocates anything whose size comes from src, decompresses into a buffer
// of exactly the declared size, and checks that the runs are sorted,
// disjoint and (if lim.ArenaSize > 0) inside the arena.
//
// Errors wrap [ErrCorrupt] for malformed input, [ErrVersion] for an unknown
// format version, and [ErrTooLarge] for sizes beyond lim; a run past the
// arena is a [*BoundsError] that also matches ErrCorrupt.
//
// Decode is safe for concurrent use.
func Decode(src []byte, lim Limits) (*Delta, error) {
	d := new(Delta)
	if err := DecodeInto(d, src, lim); err != nil {
		return nil, err
	}
	return d, nil
}

// DecodeInto is [Decode] into dst, reusing its storage (dst's earlier runs
// are overwritten). On error dst is left empty. Once dst has grown to the
// size of the deltas it decodes, it allocates nothing for an encoding
// stored without compression; a compressed body is decompressed into a
// pooled buffer, which a garbage collection may drop. It is safe for concurrent
// use with calls on other destinations.
func DecodeInto(dst *Delta, src []byte, lim Limits) error {
	if dst == nil {
		return fmt.Errorf("decode delta: nil destination: %w", ErrInvalid)
	}
	dst.Reset(0, 0)
	if err := decode(dst, src, lim, false); err != nil {
		dst.Reset(0, 0)
		return err
	}
	return nil
}

// DecodeRef is [DecodeInto] without the copy: when the encoding is stored
// without compression, the Data of dst's runs alias src, which the caller
// must then neither modify nor reuse while it uses dst (a received payload
// that the caller owns fits). A compressed body is decompressed and copied
// into dst's storage, as DecodeInto does. The checks are DecodeInto's, all
// made before DecodeRef returns. It allocates nothing once dst's run table
// has grown to the number of runs decoded.
func DecodeRef(dst *Delta, src []byte, lim Limits) error {
	if dst == nil {
		return fmt.Errorf("decode delta: nil destination: %w", ErrInvalid)
	}
	dst.Reset(0, 0)
	if err := decode(dst, src, lim, true); err != nil {
		dst.Reset(0, 0)
		return err
	}
	return nil
}

// decode parses src into dst; with alias, the runs of an uncompressed
// encoding point into src instead of a copy in dst.buf.
func decode(dst *Delta, src []byte, lim Limits, alias bool) error {
	if lim.MaxBytes <= 0 {
		lim.MaxBytes = DefaultMaxBytes
	}
	if lim.MaxRuns <= 0 {
		lim.MaxRuns = DefaultMaxRuns
	}
	if len(src) < headerSize+trailSize {
		return fmt.Errorf("decode delta: %d bytes, shorter than header and checksum: %w", len(src), ErrCorrupt)
	}
	h := src[:headerSize]
	if string(h[0:4]) != magic {
		return fmt.Errorf("decode delta: bad magic %q: %w", h[0:4], ErrCorrupt)
	}
	if h[4] != version {
		return fmt.Errorf("decode delta: version %d, want %d: %w", h[4], version, ErrVersion)
	}
	if got, want := checksum(h[:48]), binary.LittleEndian.Uint32(h[48:]); got != want {
		return fmt.Errorf("decode delta: header checksum %#08x, want %#08x: %w", got, want, ErrCorrupt)
	}
	c := Compression(h[5])
	region := binary.LittleEndian.Uint64(h[8:])
	node := int32(binary.LittleEndian.Uint32(h[16:]))
	runs := uint64(binary.LittleEndian.Uint32(h[20:]))
	table := binary.LittleEndian.Uint64(h[24:])
	payload := binary.LittleEndian.Uint64(h[32:])
	stored := binary.LittleEndian.Uint64(h[40:])
	switch {
	case c >= Auto:
		return fmt.Errorf("decode delta: compression %d: %w", h[5], ErrCorrupt)
	case h[6] != 0 || h[7] != 0:
		return fmt.Errorf("decode delta: reserved bytes %#x %#x not zero: %w", h[6], h[7], ErrCorrupt)
	case node < Merged:
		return fmt.Errorf("decode delta: node %d: %w", node, ErrCorrupt)
	case runs > uint64(lim.MaxRuns):
		return fmt.Errorf("decode delta: %d runs, limit %d: %w", runs, lim.MaxRuns, ErrTooLarge)
	case payload > uint64(lim.MaxBytes):
		return fmt.Errorf("decode delta: %d payload bytes, limit %d: %w", payload, lim.MaxBytes, ErrTooLarge)
	case lim.ArenaSize > 0 && payload > lim.ArenaSize:
		return fmt.Errorf("decode delta: %d payload bytes, arena %d: %w", payload, lim.ArenaSize, ErrTooLarge)
	case runs > payload || table < 2*runs || table > 2*maxVarint*runs:
		return fmt.Errorf("decode delta: %d runs in a table of %d bytes for %d payload bytes: %w",
			runs, table, payload, ErrCorrupt)
	case stored != uint64(len(src)-headerSize-trailSize):
		return fmt.Errorf("decode delta: body of %d bytes in %d bytes of input: %w", stored, len(src), ErrCorrupt)
	case c == None && stored != table+payload:
		return fmt.Errorf("decode delta: uncompressed body of %d bytes, want %d: %w", stored, table+payload, ErrCorrupt)
	}
	end := len(src) - trailSize
	if got, want := checksum(src[:end]), binary.LittleEndian.Uint32(src[end:]); got != want {
		return fmt.Errorf("decode delta: checksum %#08x, want %#08x: %w", got, want, ErrCorrupt)
	}
	// table+payload <= 20*MaxRuns + MaxBytes: bounded by lim, so it fits an
	// int on 64-bit platforms; check anyway for 32-bit ones.
	if table+payload > math.MaxInt {
		return fmt.Errorf("decode delta: body of %d bytes: %w", table+payload, ErrTooLarge)
	}
	size := int(table + payload)

	raw := src[headerSize:end]
	alias = alias && c == None
	if c != None {
		scratch := getScratch()
		defer putScratch(scratch)
		var err error
		if raw, err = decompress((*scratch)[:0], raw, c, size); err != nil {
			return fmt.Errorf("decode delta: %v body: %w", c, err)
		}
		*scratch = raw
	}

	dst.Region, dst.Node = region, int(node)
	if err := dst.parse(raw[:table], raw[table:], int(runs), lim.ArenaSize, alias); err != nil {
		return fmt.Errorf("decode delta: %w", err)
	}
	return nil
}

// decompress decodes raw, compressed as c, into dst (empty), which it grows
// to exactly size bytes, and fails if raw does not decode to exactly size
// bytes.
func decompress(dst, raw []byte, c Compression, size int) ([]byte, error) {
	if cap(dst) < size {
		dst = make([]byte, 0, size)
	}
	switch c {
	case S2:
		n, err := s2.DecodedLen(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		if n != size {
			return nil, fmt.Errorf("declared %d bytes, want %d: %w", n, size, ErrCorrupt)
		}
		out, err := s2.Decode(dst[:size], raw)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		return out, nil
	case Zstd:
		dec, err := zstdDecoder()
		if err != nil {
			return nil, fmt.Errorf("zstd decoder: %w", err)
		}
		// The decoder is built with WithDecodeAllCapLimit: it never
		// writes beyond cap(dst).
		out, err := dec.DecodeAll(raw, dst[:0:size])
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		if len(out) != size {
			return nil, fmt.Errorf("decoded %d bytes, want %d: %w", len(out), size, ErrCorrupt)
		}
		return out, nil
	}
	return nil, fmt.Errorf("compression %d: %w", c, ErrCorrupt)
}

// parse fills d from a runs table and a payload whose sizes the caller
// checked against the limits. With alias the runs point into payload, else
// into a copy of it in d.buf.
func (d *Delta) parse(table, payload []byte, runs int, arena uint64, alias bool) error {
	d.Runs = slices.Grow(d.Runs[:0], runs)[:runs]
	data := payload
	if !alias {
		d.buf = append(d.buf[:0], payload...) // unlike make+copy, does not zero first
		data = d.buf
	}
	var prevEnd uint64
	pos := 0
	for i := range d.Runs {
		gap, k := uvarint(table)
		if k == 0 {
			return fmt.Errorf("run %d: bad gap varint: %w", i, ErrCorrupt)
		}
		table = table[k:]
		n, k := uvarint(table)
		if k == 0 {
			return fmt.Errorf("run %d: bad length varint: %w", i, ErrCorrupt)
		}
		table = table[k:]
		switch {
		case n == 0:
			return fmt.Errorf("run %d: empty: %w", i, ErrCorrupt)
		case i > 0 && gap == 0:
			return fmt.Errorf("run %d at offset %#x touches the previous run: %w", i, prevEnd, ErrCorrupt)
		case gap > math.MaxUint64-prevEnd || n > math.MaxUint64-prevEnd-gap:
			return fmt.Errorf("run %d: gap %d and length %d after offset %#x pass 2^64-1: %w",
				i, gap, n, prevEnd, ErrCorrupt)
		case n > uint64(len(data)-pos):
			return fmt.Errorf("run %d: length %d beyond the payload: %w", i, n, ErrCorrupt)
		}
		off := prevEnd + gap
		if arena > 0 && (off > arena || n > arena-off) {
			return fmt.Errorf("run %d: %w: %w", i, ErrCorrupt, &BoundsError{Offset: off, Length: n, Size: arena})
		}
		d.Runs[i] = Run{Off: off, Data: data[pos : pos+int(n) : pos+int(n)]}
		pos += int(n)
		prevEnd = off + n
	}
	if len(table) != 0 || pos != len(data) {
		return fmt.Errorf("%d table bytes and %d payload bytes left over: %w", len(table), len(data)-pos, ErrCorrupt)
	}
	return nil
}

// uvarint is binary.Uvarint that also rejects non-minimal encodings, so that
// every delta has exactly one encoding per compression. It returns k == 0
// for any malformed input.
func uvarint(b []byte) (v uint64, k int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	v, k = binary.Uvarint(b)
	if k <= 0 || k > 1 && b[k-1] == 0 {
		return 0, 0
	}
	return v, k
}
