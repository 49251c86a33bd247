package ckptlog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// MaxQueued bounds the bytes of frames queued for the writer goroutine: an
// Append that would exceed it waits (unless the queue is empty).
const MaxQueued = 256 << 20

// Writer appends frames to a log from its own goroutine (see the package
// doc for the fsync policy). Its methods must be called from one goroutine.
type Writer struct {
	dir  *Dir
	work chan op
	done chan struct{}
	// pool holds frame buffers already written once, so that encoding a
	// record into one costs a copy and no page faults (fresh memory costs
	// a fault per page, tens of microseconds each in a virtual machine).
	pool    chan []byte
	buffers atomic.Int32 // frame buffers in circulation

	// The syncer goroutine (syncLoop) calls fdatasync on syncFile when
	// syncReq asks; syncMu is held while it syncs and while the writer
	// replaces the file.
	syncReq  chan struct{}
	syncQuit chan struct{} // closed by the writer at the end
	syncMu   sync.Mutex
	syncFile *os.File     // protected by syncMu
	large    atomic.Int64 // records written in place
	noHold   atomic.Bool  // records are written as they come (NoHold)

	mu   sync.Mutex
	cond *sync.Cond
	// mu protects the following fields.
	queued int64 // bytes of frames in work
	// logical is the log's size once everything queued is written: an
	// Append adds to it, a Replace sets it to the new log's size.
	logical int64
	err     error         // the first I/O error; every later call returns it
	size    int64         // bytes of the log on disk
	peak    int64         // the most bytes the directory held at once (old and new log during a compaction)
	syncs   int           // fdatasync calls
	synced  time.Duration // time spent in them
	// superseded counts the records a compaction made useless before
	// they were written (set when the writer ends).
	superseded int
}

type op struct {
	frame   []byte   // append this frame, or
	vecs    [][]byte // append this frame, in pieces that the caller owns until done is closed, or
	replace [][]byte // write these frames to a new log that replaces the old
	done    chan struct{}
	pooled  bool // frame came from the pool: give it back once written
}

// poolSize is the number of frame buffers the writer keeps for reuse.
const poolSize = maxBuffers

func newWriter(d *Dir, f *os.File, size int64) *Writer {
	w := &Writer{dir: d, work: make(chan op, 1<<16), done: make(chan struct{}), size: size, peak: size, logical: size,
		pool: make(chan []byte, poolSize), syncReq: make(chan struct{}, 1), syncQuit: make(chan struct{})}
	w.cond = sync.NewCond(&w.mu)
	go w.loop(f)
	return w
}

// Frame returns a buffer for a frame of kind k: the caller appends the
// payload and passes the buffer to Append.
func Frame(k Kind, capacity int) []byte {
	b := make([]byte, frameHead, frameHead+capacity)
	b[6] = byte(k)
	return b
}

// Append queues frame (from Frame, with its payload appended) for writing;
// the writer owns it from here. It returns the first error the writer met,
// if any: once a write failed, nothing more is written.
func (w *Writer) Append(frame []byte) error {
	return w.enqueue(op{frame: frame}, int64(len(frame)), false)
}

// Replace queues frames (each from Frame) that replace the whole log once
// the frames queued before them are written: they go to a new file, synced
// and renamed over the log, so a crash leaves either log, never a mix.
func (w *Writer) Replace(frames ...[]byte) error {
	var n int64
	for _, f := range frames {
		n += int64(len(f))
	}
	return w.enqueue(op{replace: frames}, n, true)
}

// AppendRegion appends r's record. When a buffer of the pool can hold it,
// the record is copied into it and queued, and AppendRegion returns at once;
// otherwise the writer writes the record from r's own memory while
// AppendRegion waits (no buffer to fault in), then prepares a buffer of that
// size for the next record, off the caller's path. r's memory must not
// change until AppendRegion returns.
func (w *Writer) AppendRegion(r *Region) error {
	n := frameHead + regionSize(r)
	var buf []byte
	select {
	case buf = <-w.pool:
	default:
	}
	if cap(buf) < n && buf != nil {
		w.buffers.Add(-1) // too small: dropped; the writer makes larger ones
		buf = nil
	}
	if buf == nil && w.roomFor(int64(n)) {
		buf = make([]byte, 0, bufferSize(int64(n)))
		w.buffers.Add(1)
	}
	if buf != nil {
		frame := AppendRegion(append(buf[:0], make([]byte, frameHead)...), r)
		frame[6] = byte(KindRegion)
		return w.enqueue(op{frame: frame, pooled: true}, int64(n), false)
	}
	head := appendRegionHead(Frame(KindRegion, 256+16*len(r.Runs)), r)
	vecs := make([][]byte, 0, 1+len(r.Runs))
	vecs = append(vecs, head)
	for _, run := range r.Runs {
		vecs = append(vecs, run.Data)
	}
	o := op{vecs: vecs, done: make(chan struct{})}
	if err := w.enqueue(o, int64(n), false); err != nil {
		return err
	}
	<-o.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

func (w *Writer) enqueue(o op, n int64, replace bool) error {
	w.mu.Lock()
	for w.err == nil && w.queued > 0 && w.queued+n > MaxQueued {
		w.cond.Wait()
	}
	err := w.err
	if err == nil {
		w.queued += n
		if replace {
			w.logical = n
		} else {
			w.logical += n
		}
	}
	w.mu.Unlock()
	if err != nil {
		return err
	}
	w.work <- o
	return nil
}

// SyncEvery is the group commit window: a syncer goroutine calls fdatasync
// after the writer has written, at most once per SyncEvery (records written
// meanwhile are covered by the next call), and Close syncs at the end.
const SyncEvery = time.Second

// Holding records (see the package doc): while records are appended
// faster than HoldRate bytes a second, the writer keeps each one up to
// HoldFor before writing it, and a compaction queued meanwhile supersedes
// the records it holds, which are then never written.
const (
	HoldRate = 64 << 20
	HoldFor  = time.Second
)

// holdRate is HoldRate (a variable for tests).
var holdRate float64 = HoldRate

// held is a record the writer holds, since when.
type held struct {
	o     op
	since time.Time
}

// holder is the writer goroutine's state for holding records.
type holder struct {
	ops         []held
	bytes       int64
	fast        bool      // appended faster than HoldRate in the last window
	winStart    time.Time // the rate's window
	winBytes    int64
	superseded  int // records dropped unwritten
	timer       *time.Timer
	timerActive bool
}

// note measures the append rate with a record of n bytes.
func (h *holder) note(n int64, now time.Time) {
	if h.winStart.IsZero() {
		h.winStart = now
	}
	h.winBytes += n
	if el := now.Sub(h.winStart); el >= 250*time.Millisecond {
		h.fast = float64(h.winBytes)/el.Seconds() > holdRate
		h.winStart, h.winBytes = now, 0
	}
}

func (w *Writer) loop(f *os.File) {
	defer close(w.done)
	w.syncFile = f
	syncDone := make(chan struct{})
	go w.syncLoop(syncDone)
	h := &holder{timer: time.NewTimer(time.Hour)}
	h.timer.Stop()
	for {
		var o op
		var ok bool
		if len(h.ops) == 0 {
			o, ok = <-w.work
		} else {
			h.arm()
			select {
			case o, ok = <-w.work:
			case <-h.timer.C:
				h.timerActive = false
				w.flushHeld(f, h, time.Now())
				continue
			}
		}
		if !ok {
			break
		}
		now := time.Now()
		switch {
		case o.replace != nil:
			w.dropHeld(h) // superseded by the new log
			var n int64
			for _, fr := range o.replace {
				n += int64(len(fr))
			}
			w.syncMu.Lock()                    // not while the syncer syncs the old file
			nf, err := w.replace(f, o.replace) // synced by the replacement
			f = nf
			w.syncFile = f
			w.syncMu.Unlock()
			w.written(n, err)
		case o.vecs == nil && o.pooled:
			h.note(int64(len(o.frame)), now)
			h.ops = append(h.ops, held{o: o, since: now})
			h.bytes += int64(len(o.frame))
			w.flushHeld(f, h, now)
		default:
			h.note(w.opSize(o), now)
			w.flushHeld(f, h, time.Time{}) // all of them, in order
			w.writeOne(f, o)
		}
	}
	w.flushHeld(f, h, time.Time{})
	close(w.syncQuit)
	close(w.syncReq)
	<-syncDone
	if err := w.sync(f); err != nil {
		w.setErr(err)
	}
	if err := f.Close(); err != nil {
		w.setErr(err)
	}
	w.mu.Lock()
	w.superseded = h.superseded
	w.mu.Unlock()
}

// arm sets the timer for the oldest held record.
func (h *holder) arm() {
	if !h.timerActive {
		h.timer.Reset(max(0, HoldFor-time.Since(h.ops[0].since)))
		h.timerActive = true
	}
}

// flushHeld writes the held records that are due: all of them when now is
// zero or the appends are not fast; else those held HoldFor, and the
// oldest beyond maxBufferBytes/2 held.
func (w *Writer) flushHeld(f *os.File, h *holder, now time.Time) {
	for len(h.ops) > 0 {
		o := h.ops[0]
		if !now.IsZero() && h.fast && !w.noHold.Load() && now.Sub(o.since) < HoldFor && h.bytes <= maxBufferBytes/2 && len(h.ops) <= maxBuffers/2 {
			break
		}
		h.ops = h.ops[1:]
		h.bytes -= int64(len(o.o.frame))
		w.writeOne(f, o.o)
	}
	if len(h.ops) == 0 {
		h.idle()
	}
}

// dropHeld drops the held records, superseded by a compaction.
func (w *Writer) dropHeld(h *holder) {
	for _, o := range h.ops {
		w.recycle(o.o.frame)
		w.written(int64(len(o.o.frame)), nil)
		h.superseded++
	}
	h.idle()
}

// idle forgets the held records (written or dropped) and stops the timer.
func (h *holder) idle() {
	h.ops, h.bytes = nil, 0
	if h.timerActive {
		h.timer.Stop() // no stale tick is received after Stop (Go 1.23 timers)
	}
	h.timerActive = false
}

func (w *Writer) opSize(o op) int64 {
	if o.vecs == nil {
		return int64(len(o.frame))
	}
	var n int64
	for _, v := range o.vecs {
		n += int64(len(v))
	}
	return n
}

// writeOne writes an append op to f and asks for a sync.
func (w *Writer) writeOne(f *os.File, o op) {
	n, err := w.write(f, o)
	w.refill(n)
	select {
	case w.syncReq <- struct{}{}:
	default: // a sync is already asked for
	}
	w.written(n, err)
}

// written accounts n queued bytes as done (written, or dropped).
func (w *Writer) written(n int64, err error) {
	w.mu.Lock()
	w.queued -= n
	if err != nil && w.err == nil {
		w.err = fmt.Errorf("checkpoint log: %w", err)
	}
	w.cond.Broadcast()
	w.mu.Unlock()
}

// syncLoop is the syncer goroutine: it calls fdatasync when the writer
// asks, at most once per SyncEvery, so that writes go on reaching the page
// cache while a sync runs (a crash of the process then loses only what is
// still queued).
func (w *Writer) syncLoop(done chan<- struct{}) {
	defer close(done)
	var last time.Time
	for range w.syncReq {
		if wait := SyncEvery - time.Since(last); wait > 0 {
			select {
			case <-time.After(wait):
			case <-w.syncQuit:
				return // Close syncs
			}
		}
		w.syncMu.Lock()
		err := w.sync(w.syncFile)
		w.syncMu.Unlock()
		last = time.Now()
		if err != nil {
			w.setErr(err)
		}
	}
}

func (w *Writer) setErr(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = fmt.Errorf("checkpoint log: %w", err)
	}
	w.mu.Unlock()
}

func (w *Writer) sync(f *os.File) error {
	t := time.Now()
	err := syncData(f)
	w.mu.Lock()
	w.syncs++
	w.synced += time.Since(t)
	w.mu.Unlock()
	return err
}

// write appends one frame: a whole one, or one in pieces (whose checksum
// it computes), which it signals written and then replaces with a pooled
// buffer of that size for the next record.
func (w *Writer) write(f *os.File, o op) (int64, error) {
	if o.vecs == nil {
		sealInPlace(o.frame, w.dir.key)
		_, err := f.Write(o.frame)
		w.grow(int64(len(o.frame)), 0)
		if o.pooled {
			w.recycle(o.frame)
		}
		return int64(len(o.frame)), err
	}
	head := o.vecs[0]
	n := int64(len(head) - frameHead)
	for _, v := range o.vecs[1:] {
		n += int64(len(v))
	}
	copy(head, magic)
	binary.LittleEndian.PutUint16(head[4:], Version)
	head[7] = 0
	binary.LittleEndian.PutUint64(head[8:], uint64(n))
	mac := w.dir.key.mac(head, append([][]byte{head[frameHead:]}, o.vecs[1:]...)...)
	copy(head[20:frameHead], mac[:])
	sum := crc32.Update(0, castagnoli, head[:16])
	sum = crc32.Update(sum, castagnoli, mac[:])
	sum = crc32.Update(sum, castagnoli, head[frameHead:])
	for _, v := range o.vecs[1:] {
		sum = crc32.Update(sum, castagnoli, v)
	}
	binary.LittleEndian.PutUint32(head[16:], sum)
	var err error
	for _, v := range o.vecs {
		if err == nil {
			_, err = f.Write(v)
		}
	}
	w.grow(int64(frameHead)+n, 0)
	close(o.done)
	w.large.Add(1)
	return int64(frameHead) + n, err
}

// smallRecord is the size up to which a record without a pooled buffer
// is copied into a new one (a few page faults) rather than written while
// the caller waits.
const smallRecord = 1 << 20

// The frame buffers in circulation (in the pool, being filled, or queued)
// number at most maxBuffers, and more than minBuffers only while they hold
// at most maxBufferBytes; the writer keeps up to poolDepth of them ready.
// Enough of them cover the records of the regions that run while the
// writer replaces the log (a compaction's write and sync), so that the
// program does not wait for the disk then.
const (
	maxBuffers     = 64
	minBuffers     = 4
	poolDepth      = 4
	maxBufferBytes = 128 << 20
)

// roomFor reports whether a new buffer of n bytes may join those in
// circulation: a small one always; a larger one within maxBuffers and
// maxBufferBytes, so that the program waits for the disk only when that
// much is queued (otherwise the record is written from the caller's
// memory while it waits).
func (w *Writer) roomFor(n int64) bool {
	if n <= smallRecord {
		return true
	}
	bufs := int64(w.buffers.Load())
	return w.large.Load() >= 2 && bufs < maxBuffers && (bufs < minBuffers || (bufs+1)*n <= maxBufferBytes)
}

// recycle gives a written frame's buffer back to the pool.
func (w *Writer) recycle(b []byte) {
	select {
	case w.pool <- b[:0]:
	default:
		w.buffers.Add(-1)
	}
}

// bufferSize is the capacity of a buffer made for a record of n bytes,
// with headroom: the next record of a time loop is often a little larger.
func bufferSize(n int64) int64 { return n + n/4 + 64<<10 }

// refill makes sure the pool holds a buffer for a record of n bytes (with
// headroom: the next record of a time loop is often a little larger),
// faulting its pages in here, off the program's path.
func (w *Writer) refill(n int64) {
	size := bufferSize(n)
	bufs := int64(w.buffers.Load())
	if size > MaxQueued || len(w.pool) >= poolDepth || bufs >= maxBuffers || (bufs >= minBuffers && (bufs+1)*size > maxBufferBytes) {
		return
	}
	if n > smallRecord && w.large.Load() < 2 {
		return // a job with one large record (one big region) pays for no buffer
	}
	b := make([]byte, size)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 0
	}
	w.buffers.Add(1)
	w.recycle(b)
}

// grow adds n bytes to the log's size; extra are bytes that exist beside
// it for the moment (a compaction's new file), for the peak.
func (w *Writer) grow(n, extra int64) {
	w.mu.Lock()
	w.size += n
	w.peak = max(w.peak, w.size+extra)
	w.mu.Unlock()
}

func (w *Writer) replace(old *os.File, frames [][]byte) (*os.File, error) {
	var n int64
	for _, fr := range frames {
		sealInPlace(fr, w.dir.key)
		n += int64(len(fr))
	}
	w.grow(0, n)
	f, size, err := w.dir.createFile(frames...)
	if err != nil {
		return old, err
	}
	w.mu.Lock()
	w.size = size
	w.mu.Unlock()
	return f, errors.Join(old.Close())
}

// sealInPlace fills the head of a frame built by Frame, authenticated by
// key.
func sealInPlace(b []byte, key Key) {
	k := Kind(b[6])
	var head [frameHead]byte
	AppendFrameHead(head[:0], k, b[frameHead:], key)
	copy(b, head[:])
}

// Stats reports the log's size on disk, the most the directory held at
// once, and the fdatasync calls made and the time they took.
func (w *Writer) Stats() (size, peak int64, syncs int, synced time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.size, w.peak, w.syncs, w.synced
}

// NoHold makes the writer write every record as it comes from now on (a
// node following the log, to join the job, needs the records up to where
// it is admitted). It is safe for concurrent use.
func (w *Writer) NoHold() { w.noHold.Store(true) }

// Superseded is the number of records that compactions made useless
// before they were written (see HoldRate), once Close has returned.
func (w *Writer) Superseded() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.superseded
}

// Size is the log's size once every queued frame is written.
func (w *Writer) Size() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.logical
}

// Close writes every queued frame, syncs and closes the log. It returns the
// first error the writer met.
func (w *Writer) Close() error {
	close(w.work)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}
