package ckptlog

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// Version is the format version this package writes and reads.
const Version = 3

// Kind is the kind of a frame.
type Kind uint8

// Frame kinds.
const (
	KindHeader Kind = 1 // the log's first frame: Header
	KindRegion Kind = 2 // one region's merged result: Region
	KindImage  Kind = 3 // a complete image of the arena at a checkpoint point: Image
)

const (
	magic     = "CAPL"
	frameHead = 52 // bytes before the payload
	macSize   = sha256.Size
)

// FrameHead is the length of a frame's head: a payload starts FrameHead
// bytes after its frame.
const FrameHead = frameHead

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Sentinel errors.
var (
	// ErrCorrupt is returned for a payload that does not parse.
	ErrCorrupt = errors.New("corrupt checkpoint record")
	// ErrUnsafeDir is returned by OpenDir for a directory or file that
	// another user owns or may access.
	ErrUnsafeDir = errors.New("checkpoint directory not private")
	// ErrAltered is returned for a frame whose checksum matches but whose
	// MAC does not: the log was altered, not torn by a crash.
	ErrAltered = errors.New("checkpoint log altered")
)

// Key is the secret that authenticates a log's frames (HMAC-SHA256): the
// checkpoint directory's key file (see OpenDir).
type Key []byte

// mac returns the MAC of a frame: its head's first 16 bytes and its
// payload, in pieces.
func (k Key) mac(head []byte, payload ...[]byte) [macSize]byte {
	m := hmac.New(sha256.New, k)
	m.Write(head[:16])
	for _, p := range payload {
		m.Write(p)
	}
	var sum [macSize]byte
	m.Sum(sum[:0])
	return sum
}

// AppendFrame appends a frame of kind k holding payload, authenticated by
// key, to dst.
func AppendFrame(dst []byte, k Kind, payload []byte, key Key) []byte {
	return append(AppendFrameHead(dst, k, payload, key), payload...)
}

// AppendFrameHead appends the head of a frame of kind k holding payload,
// authenticated by key.
func AppendFrameHead(dst []byte, k Kind, payload []byte, key Key) []byte {
	start := len(dst)
	dst = append(dst, magic...)
	dst = binary.LittleEndian.AppendUint16(dst, Version)
	dst = append(dst, byte(k), 0)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(len(payload)))
	m := key.mac(dst[start:], payload)
	sum := crc32.Update(0, castagnoli, dst[start:])
	sum = crc32.Update(sum, castagnoli, m[:])
	sum = crc32.Update(sum, castagnoli, payload)
	dst = binary.LittleEndian.AppendUint32(dst, sum)
	return append(dst, m[:]...)
}

// frameHeader is a parsed frame head.
type frameHeader struct {
	kind Kind
	n    uint64
	sum  uint32
	mac  [macSize]byte
}

// parseHead checks a frame head (frameHead bytes); limit bounds the payload.
func parseHead(b []byte, limit int64) (frameHeader, error) {
	if string(b[:4]) != magic {
		return frameHeader{}, fmt.Errorf("bad magic %q", b[:4])
	}
	if v := binary.LittleEndian.Uint16(b[4:]); v != Version {
		return frameHeader{}, fmt.Errorf("format version %d, want %d", v, Version)
	}
	h := frameHeader{kind: Kind(b[6]), n: binary.LittleEndian.Uint64(b[8:]), sum: binary.LittleEndian.Uint32(b[16:])}
	copy(h.mac[:], b[20:frameHead])
	if h.kind < KindHeader || h.kind > KindImage || b[7] != 0 {
		return frameHeader{}, fmt.Errorf("unknown frame kind %d.%d", b[6], b[7])
	}
	if h.n > uint64(limit) {
		return frameHeader{}, fmt.Errorf("payload of %d bytes over the limit of %d", h.n, limit)
	}
	return h, nil
}

// Header is the log's first record: the arena the records apply to and
// the run that wrote them.
type Header struct {
	ArenaBase uint64
	ArenaSize uint64
	PageSize  uint32
	// Program is the digest of the program that wrote the log (its
	// translated source, as cape build made it); zero where unknown (a
	// log of an earlier version, a program built without it).
	Program [32]byte
	// Args is the digest of the program's arguments in the run that
	// wrote the log; zero where unknown (an earlier version's log).
	Args [32]byte
	// Start is the hash of the arena where that run first reached a
	// region or a checkpoint point (what the program made of its
	// arguments, input and files before): zero until known, as in a log
	// of records, whose regions' entries are hashed one by one. A
	// compaction writes it with the image.
	Start uint64
}

// HeaderSize is the length of a header's payload; headers of 20 (no
// digests) and 52 bytes (no Args and Start) are earlier versions'.
const HeaderSize = 92

// headerSize reports whether n is the length of a header's payload, this
// version's or an earlier one's.
func headerSize(n uint64) bool { return n == HeaderSize || n == 52 || n == 20 }

// AppendHeader appends h's payload (base u64, size u64, page size u32,
// program digest [32], arguments' digest [32], start hash u64).
func AppendHeader(dst []byte, h Header) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, h.ArenaBase)
	dst = binary.LittleEndian.AppendUint64(dst, h.ArenaSize)
	dst = binary.LittleEndian.AppendUint32(dst, h.PageSize)
	dst = append(dst, h.Program[:]...)
	dst = append(dst, h.Args[:]...)
	return binary.LittleEndian.AppendUint64(dst, h.Start)
}

// ParseHeader parses a header payload, this version's or an earlier one's
// (the fields it lacks are zero).
func ParseHeader(p []byte) (Header, error) {
	if !headerSize(uint64(len(p))) {
		return Header{}, fmt.Errorf("%w: header of %d bytes, want %d", ErrCorrupt, len(p), HeaderSize)
	}
	h := Header{ArenaBase: binary.LittleEndian.Uint64(p), ArenaSize: binary.LittleEndian.Uint64(p[8:]), PageSize: binary.LittleEndian.Uint32(p[16:])}
	if len(p) >= 52 {
		copy(h.Program[:], p[20:52])
	}
	if len(p) >= HeaderSize {
		copy(h.Args[:], p[52:84])
		h.Start = binary.LittleEndian.Uint64(p[84:])
	}
	return h, nil
}

// Counts are the consistency counts of one node in one region (seed 000's
// sent(i)/recvd(j) counters): the bytes of the message it sent the master,
// the bytes of the merged message it received, and the delta data bytes its
// message carried. For the master, Sent is 0 and Data its own delta's.
type Counts struct {
	Sent, Recvd, Data uint64
}

// Region is the record of one region: what the master merged and injected.
type Region struct {
	Seq       uint64   // the region's number in the job (1-based)
	Name      string   // "file.go:line:col"
	EntryHash uint64   // hash of the arena's extent when the region started; 0: the arena as the previous region left it (package cape)
	Extent    uint64   // arena bytes in use when the region started
	Nodes     []Counts // indexed by rank; len is the job's size
	Values    []byte   // reduction and lastprivate results, as the master sends them, then what the region printed (cape/output.go)
	Runs      []Run    // the merged delta: byte runs at arena offsets
}

// Run is a run of bytes of a delta at an arena offset.
type Run struct {
	Off  uint64
	Data []byte
}

// Limits on parsed payloads (a name, a node count).
const (
	maxName  = 4096
	maxNodes = 1 << 16
)

// appendRegionHead appends r's payload up to its runs' data:
//
//	seq u64, entry hash u64, extent u64,
//	name length u32, name,
//	node count u32, per node: sent u64, recvd u64, data u64,
//	values length u64, values,
//	run count u64, per run: offset u64, length u64,
//
// after which come the runs' data, concatenated in order, to the end of the
// payload. The runs' data can then be written from where it lies.
func appendRegionHead(dst []byte, r *Region) []byte {
	le := binary.LittleEndian
	dst = le.AppendUint64(dst, r.Seq)
	dst = le.AppendUint64(dst, r.EntryHash)
	dst = le.AppendUint64(dst, r.Extent)
	dst = le.AppendUint32(dst, uint32(len(r.Name)))
	dst = append(dst, r.Name...)
	dst = le.AppendUint32(dst, uint32(len(r.Nodes)))
	for _, c := range r.Nodes {
		dst = le.AppendUint64(dst, c.Sent)
		dst = le.AppendUint64(dst, c.Recvd)
		dst = le.AppendUint64(dst, c.Data)
	}
	dst = le.AppendUint64(dst, uint64(len(r.Values)))
	dst = append(dst, r.Values...)
	dst = le.AppendUint64(dst, uint64(len(r.Runs)))
	for _, run := range r.Runs {
		dst = le.AppendUint64(dst, run.Off)
		dst = le.AppendUint64(dst, uint64(len(run.Data)))
	}
	return dst
}

// regionSize is the length of r's payload.
func regionSize(r *Region) int {
	n := 8*3 + 4 + len(r.Name) + 4 + 24*len(r.Nodes) + 8 + len(r.Values) + 8 + 16*len(r.Runs)
	for _, run := range r.Runs {
		n += len(run.Data)
	}
	return n
}

// RecordSize is the bytes r's record takes in the log, frame included.
func RecordSize(r *Region) int64 { return int64(frameHead + regionSize(r)) }

// AppendRegion appends r's payload to dst (the layout is on
// appendRegionHead).
func AppendRegion(dst []byte, r *Region) []byte {
	dst = appendRegionHead(dst, r)
	for _, run := range r.Runs {
		dst = append(dst, run.Data...)
	}
	return dst
}

// reader reads a payload's fields, remembering the first error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n uint64, what string) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.err = fmt.Errorf("%w: %s of %d bytes, %d left", ErrCorrupt, what, n, len(r.b))
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) u64(what string) uint64 {
	if b := r.take(8, what); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (r *reader) u32(what string) uint32 {
	if b := r.take(4, what); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *reader) end() error {
	if r.err == nil && len(r.b) != 0 {
		r.err = fmt.Errorf("%w: %d trailing bytes", ErrCorrupt, len(r.b))
	}
	return r.err
}

// ParseRegion parses a region payload. The slices it returns alias p. It
// checks the payload's structure, not that the runs are ordered or fit an
// arena (applying them does).
func ParseRegion(p []byte) (*Region, error) {
	rd := &reader{b: p}
	r := &Region{Seq: rd.u64("seq"), EntryHash: rd.u64("entry hash"), Extent: rd.u64("extent")}
	nl := rd.u32("name length")
	if rd.err == nil && nl > maxName {
		return nil, fmt.Errorf("%w: name of %d bytes", ErrCorrupt, nl)
	}
	r.Name = string(rd.take(uint64(nl), "name"))
	nn := rd.u32("node count")
	if rd.err == nil && (nn == 0 || nn > maxNodes || uint64(nn)*24 > uint64(len(rd.b))) {
		return nil, fmt.Errorf("%w: %d nodes", ErrCorrupt, nn)
	}
	if rd.err == nil {
		r.Nodes = make([]Counts, nn)
		for i := range r.Nodes {
			r.Nodes[i] = Counts{Sent: rd.u64("sent"), Recvd: rd.u64("recvd"), Data: rd.u64("data")}
		}
	}
	r.Values = rd.take(rd.u64("values length"), "values")
	nr := rd.u64("run count")
	if rd.err == nil && nr > uint64(len(rd.b))/16 {
		return nil, fmt.Errorf("%w: %d runs in %d bytes", ErrCorrupt, nr, len(rd.b))
	}
	if rd.err == nil && nr > 0 {
		r.Runs = make([]Run, nr)
		table := rd.take(16*nr, "run table")
		for i := range r.Runs {
			r.Runs[i].Off = binary.LittleEndian.Uint64(table[16*i:])
			r.Runs[i].Data = rd.take(binary.LittleEndian.Uint64(table[16*i+8:]), "run data")
		}
	}
	if err := rd.end(); err != nil {
		return nil, err
	}
	if r.Seq == 0 {
		return nil, fmt.Errorf("%w: region number 0", ErrCorrupt)
	}
	return r, nil
}

// Image is a complete copy of the arena's extent at a //cape:checkpoint
// point, with the live variables the translator named there: everything a
// restart needs at that point, so every record before it is useless.
type Image struct {
	Seq    uint64 // regions completed when the image was taken
	Point  string // the directive's "file.go:line:col"
	Alloc  []byte // the arena allocator's state (package arena's encoding)
	Table  []byte // the live allocations' types and places (package allocs' encoding)
	Vars   []byte // the named variables' bytes, in the directive's order
	Memory []byte // the arena's extent
}

// AppendImage appends im's payload to dst:
//
//	seq u64, point length u32, point,
//	alloc length u64, alloc, table length u64, table, vars length u64, vars,
//	memory length u64, memory.
func AppendImage(dst []byte, im *Image) []byte {
	le := binary.LittleEndian
	dst = le.AppendUint64(dst, im.Seq)
	dst = le.AppendUint32(dst, uint32(len(im.Point)))
	dst = append(dst, im.Point...)
	for _, b := range [][]byte{im.Alloc, im.Table, im.Vars, im.Memory} {
		dst = le.AppendUint64(dst, uint64(len(b)))
		dst = append(dst, b...)
	}
	return dst
}

// ParseImage parses an image payload. The slices it returns alias p.
func ParseImage(p []byte) (*Image, error) {
	rd := &reader{b: p}
	im := &Image{Seq: rd.u64("seq")}
	nl := rd.u32("point length")
	if rd.err == nil && nl > maxName {
		return nil, fmt.Errorf("%w: point name of %d bytes", ErrCorrupt, nl)
	}
	im.Point = string(rd.take(uint64(nl), "point"))
	im.Alloc = rd.take(rd.u64("alloc length"), "alloc")
	im.Table = rd.take(rd.u64("table length"), "table")
	im.Vars = rd.take(rd.u64("vars length"), "vars")
	im.Memory = rd.take(rd.u64("memory length"), "memory")
	if err := rd.end(); err != nil {
		return nil, err
	}
	return im, nil
}
