package ckptlog

import (
	"errors"
	"fmt"
	"os"
	"sync"
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

	mu   sync.Mutex
	cond *sync.Cond
	// mu protects the following fields.
	queued int64         // bytes of frames in work
	err    error         // the first I/O error; every later call returns it
	size   int64         // bytes of the log on disk
	peak   int64         // the most bytes the directory held at once (old and new log during a compaction)
	syncs  int           // fdatasync calls
	synced time.Duration // time spent in them
}

type op struct {
	frame   []byte   // append this frame, or
	replace [][]byte // write these frames to a new log that replaces the old
}

func newWriter(d *Dir, f *os.File, size int64) *Writer {
	w := &Writer{dir: d, work: make(chan op, 1<<16), done: make(chan struct{}), size: size, peak: size}
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
	return w.enqueue(op{frame: frame}, int64(len(frame)))
}

// Replace queues frames (each from Frame) that replace the whole log once
// the frames queued before them are written: they go to a new file, synced
// and renamed over the log, so a crash leaves either log, never a mix.
func (w *Writer) Replace(frames ...[]byte) error {
	var n int64
	for _, f := range frames {
		n += int64(len(f))
	}
	return w.enqueue(op{replace: frames}, n)
}

func (w *Writer) enqueue(o op, n int64) error {
	w.mu.Lock()
	for w.err == nil && w.queued > 0 && w.queued+n > MaxQueued {
		w.cond.Wait()
	}
	err := w.err
	if err == nil {
		w.queued += n
	}
	w.mu.Unlock()
	if err != nil {
		return err
	}
	w.work <- o
	return nil
}

func (w *Writer) loop(f *os.File) {
	defer close(w.done)
	for o := range w.work {
		n := int64(len(o.frame))
		var err error
		if o.replace != nil {
			n = 0
			for _, fr := range o.replace {
				n += int64(len(fr))
			}
			f, err = w.replace(f, o.replace)
		} else {
			sealInPlace(o.frame)
			_, err = f.Write(o.frame)
			w.grow(int64(len(o.frame)), 0)
			// Group commit: sync once the queue is empty.
			if err == nil && len(w.work) == 0 {
				err = w.sync(f)
			}
		}
		w.mu.Lock()
		w.queued -= n
		if err != nil && w.err == nil {
			w.err = fmt.Errorf("checkpoint log: %w", err)
		}
		w.cond.Broadcast()
		w.mu.Unlock()
	}
	if err := w.sync(f); err != nil {
		w.setErr(err)
	}
	if err := f.Close(); err != nil {
		w.setErr(err)
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
		sealInPlace(fr)
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

// sealInPlace fills the head of a frame built by Frame.
func sealInPlace(b []byte) {
	k := Kind(b[6])
	var head [frameHead]byte
	AppendFrameHead(head[:0], k, b[frameHead:])
	copy(b, head[:])
}

// Stats reports the log's size on disk, the most the directory held at
// once, and the fdatasync calls made and the time they took.
func (w *Writer) Stats() (size, peak int64, syncs int, synced time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.size, w.peak, w.syncs, w.synced
}

// Size is the log's size on disk plus the bytes queued for it.
func (w *Writer) Size() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.size + w.queued
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
