package delta

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"strings"
	"sync"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// Compression selects how [Delta.AppendBinary] stores the body of an
// encoding. It is a plain value, safe for concurrent use.
type Compression uint8

// Compression kinds. None, S2 and Zstd are stored in encodings; Auto only
// asks the encoder to choose.
const (
	None Compression = iota // stored as is
	S2                      // s2 block, fastest level: ≈ 1 GB/s, for fast links
	Zstd                    // zstd SpeedFastest: slower, smaller, for slow links
	// Auto stores the body as None when it is shorter than
	// AutoMinBytes; otherwise it compresses it with S2 and keeps the result
	// only if it saves at least 1/8 (12.5 %) of the body, else stores None.
	Auto
)

// AutoMinBytes is the body size below which [Auto] does not try to compress.
const AutoMinBytes = 1024

var compressionNames = [...]string{None: "none", S2: "s2", Zstd: "zstd", Auto: "auto"}

// String returns "none", "s2", "zstd" or "auto".
func (c Compression) String() string {
	if int(c) < len(compressionNames) {
		return compressionNames[c]
	}
	return fmt.Sprintf("Compression(%d)", uint8(c))
}

// ParseCompression parses "none", "s2", "zstd" or "auto" (any case).
func ParseCompression(s string) (Compression, error) {
	for i, n := range compressionNames {
		if strings.EqualFold(s, n) {
			return Compression(i), nil
		}
	}
	return 0, fmt.Errorf("parse compression %q (want none, s2, zstd or auto): %w", s, ErrCompression)
}

// MarshalText implements [encoding.TextMarshaler].
func (c Compression) MarshalText() ([]byte, error) {
	if int(c) >= len(compressionNames) {
		return nil, fmt.Errorf("marshal %v: %w", c, ErrCompression)
	}
	return []byte(c.String()), nil
}

// UnmarshalText implements [encoding.TextUnmarshaler].
func (c *Compression) UnmarshalText(b []byte) error { return c.Set(string(b)) }

// Set parses s into c; with String and Type, *Compression is a flag value
// for the standard flag package and pflag.
func (c *Compression) Set(s string) error {
	v, err := ParseCompression(s)
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// Type names the flag value type for pflag.
func (*Compression) Type() string { return "compression" }

// Limits bound what [Decode] accepts and allocates. A Limits is a plain
// value, safe for concurrent use. Zero fields take the defaults below.
//
// Decode allocates at most about MaxBytes + 52×MaxRuns bytes: the payload,
// the runs table while it parses it (at most 20 bytes per run), and the
// runs (32 bytes each).
type Limits struct {
	MaxBytes  int64  // payload bytes after decompression; 0 means DefaultMaxBytes
	MaxRuns   int    // number of runs; 0 means DefaultMaxRuns
	ArenaSize uint64 // if > 0, every run must end at or before ArenaSize
}

// Defaults for zero [Limits] fields.
const (
	DefaultMaxBytes = 1 << 30
	DefaultMaxRuns  = 1 << 24
)

// ArenaLimits returns the tightest limits for deltas of an arena of size
// bytes: a payload of at most size bytes and at most (size+1)/2 runs (runs
// are separated by at least one byte).
func ArenaLimits(size uint64) Limits {
	l := Limits{ArenaSize: size, MaxBytes: math.MaxInt64, MaxRuns: math.MaxInt}
	if size < math.MaxInt64 {
		l.MaxBytes = max(int64(size), 1)
	}
	if runs := size/2 + 1; runs < math.MaxInt {
		l.MaxRuns = int(runs)
	}
	return l
}

const (
	version    = 1
	headerSize = 52
	trailSize  = 4
	magic      = "CAPD"
	maxVarint  = binary.MaxVarintLen64
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// checksum is the format's checksum of b, CRC-32C (Castagnoli): of the
// header's first 48 bytes, and of everything before the trailer.
func checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// AppendBinary appends the encoding of d (see the package documentation) to
// dst, compressed as c asks, and returns the extended slice. It copies the
// runs; touching runs are stored as one and empty runs are dropped. It
// reports an error wrapping [ErrInvalid] if the runs are not sorted and
// disjoint or Node does not fit the format, [ErrTooLarge] if there are more
// than 2^32-1 runs or the body is too large for s2, and [ErrCompression] for
// an unknown c. On error it returns dst unchanged.
//
// AppendBinary is safe for concurrent use with other readers of d; the
// compressors it uses are shared and safe for concurrent use.
func (d *Delta) AppendBinary(dst []byte, c Compression) ([]byte, error) {
	if d == nil {
		return dst, fmt.Errorf("encode delta: nil delta: %w", ErrInvalid)
	}
	if c > Auto {
		return dst, fmt.Errorf("encode delta: %v: %w", c, ErrCompression)
	}
	if d.Node < Merged || d.Node > math.MaxInt32 {
		return dst, fmt.Errorf("encode delta: node %d outside [-1, 2^31): %w", d.Node, ErrInvalid)
	}
	if _, err := checkOrder(d.Runs); err != nil {
		return dst, fmt.Errorf("encode delta: %w", err)
	}
	start := len(dst)
	dst = append(dst, make([]byte, headerSize)...)

	var b body
	if c == None {
		dst = b.append(dst, d.Runs)
	} else {
		scratch := getScratch()
		defer putScratch(scratch)
		*scratch = b.append((*scratch)[:0], d.Runs)
		raw := (*scratch)[b.start:]
		var err error
		if dst, c, err = compress(dst, raw, c); err != nil {
			return dst[:start], fmt.Errorf("encode delta: %w", err)
		}
	}
	if b.runs > math.MaxUint32 {
		return dst[:start], fmt.Errorf("encode delta: %d runs: %w", b.runs, ErrTooLarge)
	}

	d.putHeader(dst[start:start+headerSize], c, &b, uint64(len(dst)-start-headerSize))
	return binary.LittleEndian.AppendUint32(dst, checksum(dst[start:])), nil
}

// putHeader writes the header of d's encoding into h, for a body of stored
// bytes compressed as c.
func (d *Delta) putHeader(h []byte, c Compression, b *body, stored uint64) {
	copy(h[0:4], magic)
	h[4] = version
	h[5] = byte(c)
	clear(h[6:8])
	binary.LittleEndian.PutUint64(h[8:], d.Region)
	binary.LittleEndian.PutUint32(h[16:], uint32(int32(d.Node)))
	binary.LittleEndian.PutUint32(h[20:], uint32(b.runs))
	binary.LittleEndian.PutUint64(h[24:], uint64(b.table))
	binary.LittleEndian.PutUint64(h[32:], uint64(b.payload))
	binary.LittleEndian.PutUint64(h[40:], stored)
	binary.LittleEndian.PutUint32(h[48:], checksum(h[:48]))
}

// AppendBinaryVec is [Delta.AppendBinary] without compression, by
// reference: it appends the encoding's header and runs table to head, and
// each run's data, without copying it, to data; the encoding is then head's
// appended bytes, the appended pieces of data in order, and the returned
// trailer. Written out one after the other (a vectored write) they are byte
// for byte what AppendBinary(dst, None) appends. Empty runs are left out.
//
// The pieces alias d's runs: they are valid while d's runs are, and d
// must not change until they are written. Errors are AppendBinary's; on
// error head and data are returned unchanged. It allocates only when head
// or data must grow.
func (d *Delta) AppendBinaryVec(head []byte, data [][]byte) ([]byte, [][]byte, [4]byte, error) {
	var trailer [4]byte
	if d == nil {
		return head, data, trailer, fmt.Errorf("encode delta: nil delta: %w", ErrInvalid)
	}
	if d.Node < Merged || d.Node > math.MaxInt32 {
		return head, data, trailer, fmt.Errorf("encode delta: node %d outside [-1, 2^31): %w", d.Node, ErrInvalid)
	}
	if _, err := checkOrder(d.Runs); err != nil {
		return head, data, trailer, fmt.Errorf("encode delta: %w", err)
	}
	start, n := len(head), len(data)
	head = append(head, make([]byte, headerSize)...)
	var b body
	head = b.appendTable(head, d.Runs)
	for _, r := range d.Runs {
		if len(r.Data) > 0 {
			data = append(data, r.Data)
			b.payload += len(r.Data)
		}
	}
	if b.runs > math.MaxUint32 {
		return head[:start], data[:n], trailer, fmt.Errorf("encode delta: %d runs: %w", b.runs, ErrTooLarge)
	}
	d.putHeader(head[start:start+headerSize], None, &b, uint64(b.table+b.payload))
	sum := crc32.Update(0, castagnoli, head[start:])
	for _, p := range data[n:] {
		sum = crc32.Update(sum, castagnoli, p)
	}
	binary.LittleEndian.PutUint32(trailer[:], sum)
	return head, data, trailer, nil
}

// body counts what body.append wrote.
type body struct {
	start   int // where the body starts in the slice
	runs    int // runs in the table, after coalescing
	table   int // bytes of the table
	payload int // bytes of the payload
}

// append appends the runs table and the payload of runs (sorted and
// disjoint) to dst.
func (b *body) append(dst []byte, runs []Run) []byte {
	dst = b.appendTable(dst, runs)
	for _, r := range runs {
		dst = append(dst, r.Data...)
	}
	b.payload = len(dst) - b.start - b.table
	return dst
}

// appendTable appends the runs table of runs (sorted and disjoint) to dst.
func (b *body) appendTable(dst []byte, runs []Run) []byte {
	b.start = len(dst)
	var prevEnd, off, n uint64 // pending table entry: n bytes at off
	flush := func() {
		if n > 0 {
			dst = binary.AppendUvarint(dst, off-prevEnd)
			dst = binary.AppendUvarint(dst, n)
			prevEnd = off + n
			b.runs++
		}
	}
	for _, r := range runs {
		switch {
		case len(r.Data) == 0:
		case n > 0 && r.Off == off+n:
			n += uint64(len(r.Data))
		default:
			flush()
			off, n = r.Off, uint64(len(r.Data))
		}
	}
	flush()
	b.table = len(dst) - b.start
	return dst
}

// compress appends raw to dst compressed as c asks and returns the kind it
// stored.
func compress(dst, raw []byte, c Compression) ([]byte, Compression, error) {
	switch c {
	case Zstd:
		enc, err := zstdEncoder()
		if err != nil {
			return dst, c, fmt.Errorf("zstd encoder: %w", err)
		}
		return enc.EncodeAll(raw, dst), Zstd, nil
	case S2, Auto:
		if c == Auto && len(raw) < AutoMinBytes {
			break
		}
		m := s2.MaxEncodedLen(len(raw))
		if m < 0 {
			if c == Auto {
				break
			}
			return dst, c, fmt.Errorf("s2 body of %d bytes: %w", len(raw), ErrTooLarge)
		}
		n := len(dst)
		dst = growLen(dst, m)
		enc := s2.Encode(dst[n:n+m], raw)
		if c == S2 || len(enc) <= len(raw)-len(raw)/8 {
			return dst[:n+len(enc)], S2, nil
		}
		dst = dst[:n]
	}
	return append(dst, raw...), None, nil
}

// growLen extends dst's length by n bytes, keeping its content.
func growLen(dst []byte, n int) []byte {
	if cap(dst)-len(dst) < n {
		nd := make([]byte, len(dst), len(dst)+n)
		copy(nd, dst)
		dst = nd
	}
	return dst[:len(dst)+n]
}

// Encoders and decoders are built once, on first use, and shared: their
// EncodeAll and DecodeAll methods are safe for concurrent use.
var (
	zstdEncoder = sync.OnceValues(func() (*zstd.Encoder, error) {
		return zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(false))
	})
	zstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
		return zstd.NewReader(nil, zstd.WithDecodeAllCapLimit(true), zstd.WithDecoderConcurrency(0))
	})
)

// scratchPool holds buffers for bodies before compression and after
// decompression.
var scratchPool sync.Pool

func getScratch() *[]byte {
	if p, ok := scratchPool.Get().(*[]byte); ok {
		return p
	}
	return new([]byte)
}

func putScratch(p *[]byte) {
	if cap(*p) > 256<<20 {
		return // do not pin huge buffers
	}
	*p = (*p)[:0]
	scratchPool.Put(p)
}
