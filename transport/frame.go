package transport

import (
	"bufio"
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"time"
)

// Frame layout; see doc.go. All integers are big-endian.
const (
	headerLen   = 24
	tagLen      = 16
	maxChunkLen = 1 << 20 // largest chunk a receiver accepts

	kindHeartbeat = 1 // empty; consumed by the reader
	kindBye       = 2 // empty; the peer closes cleanly

	flagFin = 1 // last chunk of a message
)

// chunkLen is the chunk size this node sends (≤ maxChunkLen). Small enough
// for a chunk to stay in cache between its MAC and its copy into the socket,
// and for sender and receiver to overlap.
var chunkLen = 256 << 10

// header is one frame header.
type header struct {
	kind  uint8
	flags uint8
	chunk uint32 // bytes of payload in this frame
	seq   uint64 // the message's Seq
	total uint64 // the message's payload length, the same in all its chunks
}

func (h *header) put(b *[headerLen]byte) {
	b[0] = h.kind
	b[1] = h.flags
	b[2], b[3] = 0, 0
	binary.BigEndian.PutUint32(b[4:], h.chunk)
	binary.BigEndian.PutUint64(b[8:], h.seq)
	binary.BigEndian.PutUint64(b[16:], h.total)
}

// parseHeader decodes and checks a header on its own: reserved bits zero,
// chunk ≤ maxChunkLen and ≤ total, total ≤ maxFrame. It never allocates.
func parseHeader(b []byte, maxFrame int) (header, error) {
	if len(b) < headerLen {
		return header{}, fmt.Errorf("%w: header of %d bytes", ErrCorruptFrame, len(b))
	}
	h := header{
		kind:  b[0],
		flags: b[1],
		chunk: binary.BigEndian.Uint32(b[4:]),
		seq:   binary.BigEndian.Uint64(b[8:]),
		total: binary.BigEndian.Uint64(b[16:]),
	}
	switch {
	case b[2] != 0 || b[3] != 0 || h.flags&^flagFin != 0:
		return h, fmt.Errorf("%w: reserved header bits set", ErrCorruptFrame)
	case h.total > uint64(maxFrame):
		return h, fmt.Errorf("%w: message of %d bytes, limit %d", ErrFrameTooLarge, h.total, maxFrame)
	case h.chunk > maxChunkLen:
		return h, fmt.Errorf("%w: chunk of %d bytes, limit %d", ErrCorruptFrame, h.chunk, maxChunkLen)
	case uint64(h.chunk) > h.total:
		return h, fmt.Errorf("%w: chunk of %d bytes in a message of %d", ErrCorruptFrame, h.chunk, h.total)
	case h.chunk == 0 && h.flags&flagFin == 0:
		return h, fmt.Errorf("%w: empty chunk that is not the last", ErrCorruptFrame)
	case h.kind < MinKind && !internalKind(h.kind) && (h.kind != kindHeartbeat && h.kind != kindBye || h.total != 0):
		return h, fmt.Errorf("%w: reserved kind %d", ErrCorruptFrame, h.kind)
	}
	return h, nil
}

// macer computes and checks GMAC tags (AES-GCM with an empty plaintext) under
// one direction's key. The nonce is a 64-bit counter, incremented for every
// tag, so each (key, nonce) pair is used once and a tag only verifies at its
// position in the stream. It is not safe for concurrent use.
type macer struct {
	aead  cipher.AEAD
	ctr   uint64
	nonce [12]byte
}

func newMacer(key []byte) (*macer, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &macer{aead: aead}, nil
}

func (m *macer) next() []byte {
	binary.BigEndian.PutUint64(m.nonce[4:], m.ctr)
	m.ctr++
	return m.nonce[:]
}

// sum writes the tag of data into tag.
func (m *macer) sum(tag *[tagLen]byte, data []byte) {
	m.aead.Seal(tag[:0], m.next(), nil, data)
}

// verify reports whether tag authenticates data at the current position.
func (m *macer) verify(tag []byte, data []byte) bool {
	_, err := m.aead.Open(nil, m.next(), tag, data)
	return err == nil
}

// deadlineWriter is the part of a net.Conn a frameWriter uses.
type deadlineWriter interface {
	io.Writer
	SetWriteDeadline(time.Time) error
}

// frameWriter writes messages as authenticated frames. It is not safe for
// concurrent use.
type frameWriter struct {
	w       deadlineWriter
	timeout time.Duration // per write call
	mac     *macer
	hdr     [headerLen]byte
	htag    [tagLen]byte
	ctag    [tagLen]byte
	iov     [4][]byte
	bufs    net.Buffers
	raw     *rawIO    // nil: every write through w
	armed   time.Time // when the write deadline was last set (see arm)
	vec     vecState  // writeVec's buffers
}

// writeMessage writes p in chunks of at most chunkLen bytes: per chunk, one
// writev of header, header tag, chunk and chunk tag. p is not modified.
func (w *frameWriter) writeMessage(kind uint8, seq uint64, p []byte) error {
	total := len(p)
	for off := 0; ; {
		n := min(chunkLen, total-off)
		h := header{kind: kind, chunk: uint32(n), seq: seq, total: uint64(total)}
		if off+n == total {
			h.flags = flagFin
		}
		if err := w.writeFrame(h, p[off:off+n]); err != nil {
			return err
		}
		off += n
		if off == total {
			return nil
		}
	}
}

// writeFrame writes one frame: one writev of header, header tag, chunk and
// chunk tag. h.chunk must be len(chunk).
func (w *frameWriter) writeFrame(h header, chunk []byte) error {
	h.put(&w.hdr)
	w.mac.sum(&w.htag, w.hdr[:])
	iov := append(w.iov[:0], w.hdr[:], w.htag[:])
	if len(chunk) > 0 {
		w.mac.sum(&w.ctag, chunk)
		iov = append(iov, chunk, w.ctag[:])
	}
	if err := w.arm(); err != nil {
		return err
	}
	return w.writeIov(iov)
}

// deadlineSlack is how old a connection's read or write deadline may get
// before it is set again. Setting it before every read and write, as the
// timeout asks, modifies a runtime timer each time, which wakes an idle
// thread to watch it (a wake-up per message in a loop of small regions).
// A deadline is set timeout + slack ahead instead, and again once slack
// has passed: an operation still fails only after timeout without
// progress, and within timeout + slack.
func deadlineSlack(timeout time.Duration) time.Duration {
	return min(timeout/64, 10*time.Millisecond)
}

// arm sets the write deadline, unless the one set less than a slack ago
// still holds (see deadlineSlack).
func (w *frameWriter) arm() error {
	now := time.Now()
	slack := deadlineSlack(w.timeout)
	if !w.armed.IsZero() && now.Sub(w.armed) < slack {
		return nil
	}
	if err := w.w.SetWriteDeadline(now.Add(w.timeout + slack)); err != nil {
		return err
	}
	w.armed = now
	return nil
}

// setTimeout makes the next writes' deadline timeout from now, exactly.
func (w *frameWriter) setTimeout(timeout time.Duration) error {
	w.timeout = timeout
	if err := w.w.SetWriteDeadline(time.Now().Add(timeout)); err != nil {
		return err
	}
	w.armed = time.Now().Add(time.Hour) // arm keeps it
	return nil
}

// writeIov writes bufs with one writev (more if the socket takes part of
// them), on the raw path if they are small.
func (w *frameWriter) writeIov(bufs [][]byte) error {
	if w.raw != nil {
		if done, err := w.raw.writev(bufs); done {
			return err
		}
	}
	w.bufs = bufs
	_, err := w.bufs.WriteTo(w.w)
	w.bufs = nil
	return err
}

// deadlineReader keeps a read deadline ahead of every read, so that a
// peer silent for timeout fails the read while a slow but steady one does
// not (see deadlineSlack).
type deadlineReader struct {
	c       net.Conn
	timeout time.Duration
	hold    bool   // the caller set the deadline: keep it
	raw     *rawIO // nil: every read through c
	// armed is when the read deadline was last set, in nanoseconds since
	// epoch, or 0 when it must be set before the next read (shut cut it
	// short).
	armed atomic.Int64
	epoch time.Time
}

// arm sets the read deadline, unless the one set less than a slack ago
// still holds.
func (d *deadlineReader) arm() error {
	if d.epoch.IsZero() {
		d.epoch = time.Now()
	}
	now := time.Since(d.epoch)
	slack := deadlineSlack(d.timeout)
	if a := d.armed.Load(); a != 0 && now-time.Duration(a) < slack {
		return nil
	}
	if err := d.c.SetReadDeadline(time.Now().Add(d.timeout + slack)); err != nil {
		return err
	}
	d.armed.Store(int64(max(now, 1)))
	return nil
}

func (d *deadlineReader) Read(p []byte) (int, error) {
	if !d.hold {
		if err := d.arm(); err != nil {
			return 0, err
		}
	}
	if d.raw != nil {
		if n, done, err := d.raw.read(p); done {
			return n, err
		}
	}
	return d.c.Read(p)
}

// maxControlLen bounds the payload of the transport's set-up messages
// (kindPort, kindLinks, kindReady).
const maxControlLen = 16 << 10

// firstAlloc is the most a receiver allocates for a message before its
// bytes arrive; beyond it the buffer grows as chunks arrive (by four), so
// that a header declaring a large message costs only what is sent. It is
// large enough for the deltas of common regions to arrive without a copy
// (a region's 4 MiB of pages plus the envelope's few bytes used to grow,
// copying 4 MiB into fresh memory); a header whose message never comes
// costs an allocation of at most this much.
const firstAlloc = 16 << 20

// frameReader reads and verifies frames. It is not safe for concurrent use.
type frameReader struct {
	r        io.Reader
	mac      *macer
	maxFrame int
	limits   map[uint8]int // per caller kind, from Config.KindLimits
	hdr      [headerLen + tagLen]byte
	tag      [tagLen]byte

	// take, if set, returns a buffer of capacity at least total for a
	// payload, or nil to allocate one.
	take func(total uint64) []byte

	// onChunk, if set, sees every verified frame of a relayed message as
	// it arrives (chunk aliases the payload being assembled), so that it
	// can be forwarded before the message is complete.
	onChunk func(h header, chunk []byte)
}

// buffered returns the bytes read from the socket and not yet consumed.
func (fr *frameReader) buffered() int {
	if br, ok := fr.r.(*bufio.Reader); ok {
		return br.Buffered()
	}
	return 0
}

// peek waits until a byte can be read, without consuming it.
func (fr *frameReader) peek() error {
	if br, ok := fr.r.(*bufio.Reader); ok {
		_, err := br.Peek(1)
		return err
	}
	return nil
}

// newFrameReader reads from r; limits (which it does not modify) may be
// nil.
func newFrameReader(r io.Reader, mac *macer, maxFrame int, limits map[uint8]int) *frameReader {
	return &frameReader{r: bufio.NewReaderSize(r, 4<<10), mac: mac, maxFrame: maxFrame, limits: limits}
}

// limit returns the largest payload a message of kind may have: none for
// heartbeats and goodbyes, a few bytes for the transport's own messages,
// Config.KindLimits for a caller's kind that has one, else MaxFrame.
func (fr *frameReader) limit(kind uint8) uint64 {
	switch {
	case kind == kindHeartbeat || kind == kindBye:
		return 0
	case kind == kindAnnounce:
		return announceLen
	case kind >= kindPort && kind <= kindReady:
		return maxControlLen
	}
	if n, ok := fr.limits[kind]; ok {
		return uint64(min(n, fr.maxFrame))
	}
	return uint64(fr.maxFrame)
}

// grow returns payload extended to n bytes (n ≤ total), reallocating at
// most to total: four times the capacity, at least n. A message of n bytes
// then costs at most about 4n/3 bytes of allocation and n/3 of copying,
// against 2n and n when doubling.
func grow(payload []byte, n, total uint64) []byte {
	if n <= uint64(cap(payload)) {
		return payload[:n]
	}
	np := make([]byte, n, min(total, max(n, 4*uint64(cap(payload)))))
	copy(np, payload)
	return np
}

// alloc returns an empty buffer for a payload of total bytes: a released
// one if take has one, else a new one of at most firstAlloc bytes.
func (fr *frameReader) alloc(total uint64) []byte {
	if fr.take != nil {
		if b := fr.take(total); b != nil {
			return b[:0]
		}
	}
	return make([]byte, 0, min(total, firstAlloc))
}

// readMessage reads the chunks of one message and returns it once every
// chunk's tag verified. A header is verified before it is parsed, and
// parsed (total ≤ the kind's limit) before the payload is allocated; the
// payload is allocated as its chunks arrive, at most firstAlloc ahead.
// Errors from the reader are returned as they are; protocol violations wrap ErrCorruptFrame
// or ErrFrameTooLarge.
func (fr *frameReader) readMessage() (kind uint8, seq uint64, payload []byte, err error) {
	var first header
	off := uint64(0)
	for i := 0; ; i++ {
		if _, err := io.ReadFull(fr.r, fr.hdr[:]); err != nil {
			if i > 0 && err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, 0, nil, err
		}
		if !fr.mac.verify(fr.hdr[headerLen:], fr.hdr[:headerLen]) {
			return 0, 0, nil, fmt.Errorf("%w: header tag mismatch (modified, replayed or out of order)", ErrCorruptFrame)
		}
		h, err := parseHeader(fr.hdr[:headerLen], fr.maxFrame)
		if err != nil {
			return 0, 0, nil, err
		}
		if i == 0 {
			first = h
			if lim := fr.limit(h.kind); h.total > lim {
				return 0, 0, nil, fmt.Errorf("%w: message of kind %d of %d bytes, limit %d", ErrFrameTooLarge, h.kind, h.total, lim)
			}
			if h.total > 0 {
				payload = fr.alloc(h.total) // authenticated and checked
			}
		} else if h.kind != first.kind || h.seq != first.seq || h.total != first.total {
			return 0, 0, nil, fmt.Errorf("%w: chunk of another message", ErrCorruptFrame)
		}
		if off+uint64(h.chunk) > h.total {
			return 0, 0, nil, fmt.Errorf("%w: chunks exceed the message length %d", ErrCorruptFrame, h.total)
		}
		if h.chunk > 0 {
			payload = grow(payload, off+uint64(h.chunk), h.total)
			chunk := payload[off:]
			if _, err := io.ReadFull(fr.r, chunk); err != nil {
				return 0, 0, nil, unexpected(err)
			}
			if _, err := io.ReadFull(fr.r, fr.tag[:]); err != nil {
				return 0, 0, nil, unexpected(err)
			}
			if !fr.mac.verify(fr.tag[:], chunk) {
				return 0, 0, nil, fmt.Errorf("%w: payload tag mismatch (modified)", ErrCorruptFrame)
			}
			off += uint64(h.chunk)
		}
		fin := h.flags&flagFin != 0
		if fin != (off == h.total) {
			return 0, 0, nil, fmt.Errorf("%w: last-chunk flag at %d of %d bytes", ErrCorruptFrame, off, h.total)
		}
		if fr.onChunk != nil && relayKind(h.kind) {
			fr.onChunk(h, payload[off-uint64(h.chunk):off])
		}
		if fin {
			return first.kind, first.seq, payload, nil
		}
	}
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
