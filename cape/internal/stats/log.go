package stats

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Log batches --stats lines: written one by one, each line was a write to
// a pipe that woke the launcher relaying it, on cores the regions it
// measures were using. The lines go out once FlushBytes are
// pending or FlushEvery has passed since the last write, and on Flush.
// A Log is safe for concurrent use.
type Log struct {
	w   io.Writer
	now func() time.Time

	mu   sync.Mutex // protects the following fields and orders whole lines
	buf  []byte
	last time.Time
}

// Batching thresholds of a Log.
const (
	FlushBytes = 32 << 10
	FlushEvery = 250 * time.Millisecond
)

// NewLog returns a Log writing to w. now is its clock (time.Now if nil).
func NewLog(w io.Writer, now func() time.Time) *Log {
	if now == nil {
		now = time.Now
	}
	return &Log{w: w, now: now}
}

// Printf adds a line (format ends with its newline).
func (l *Log) Printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = fmt.Appendf(l.buf, format, args...)
	l.flushIfDue()
}

// Write adds p, whole lines, and never fails (io.Writer).
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	l.flushIfDue()
	return len(p), nil
}

// Flush writes the pending lines.
func (l *Log) Flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flushLocked()
}

func (l *Log) flushIfDue() {
	if len(l.buf) >= FlushBytes || l.now().Sub(l.last) >= FlushEvery {
		l.flushLocked()
	}
}

// flushLocked writes the buffer; a failed write drops it (the lines are
// diagnostics, and the node's stderr is gone).
func (l *Log) flushLocked() {
	if len(l.buf) > 0 {
		_, _ = l.w.Write(l.buf)
		l.buf = l.buf[:0]
	}
	l.last = l.now()
}
