package cape

import (
	"fmt"
	"os"
	"sync"
	"time"
)

// statsLog batches the lines --stats prints for every region: written one
// by one, each line was a write to a pipe that woke the launcher relaying
// it, on cores the regions it measures were using (a stencil run on two
// nodes of a two-core machine took 35 % longer with --stats). The lines go
// out once statsFlushBytes are pending or statsFlushEvery has passed since
// the last write, and when the node ends (Finalize, exit).
type statsLog struct {
	mu   sync.Mutex
	buf  []byte
	last time.Time
}

const (
	statsFlushBytes = 32 << 10
	statsFlushEvery = 250 * time.Millisecond
)

var stats statsLog

// statsf adds a --stats line.
func statsf(format string, args ...any) {
	stats.mu.Lock()
	defer stats.mu.Unlock()
	stats.buf = fmt.Appendf(stats.buf, format, args...)
	if len(stats.buf) >= statsFlushBytes || time.Since(stats.last) >= statsFlushEvery {
		stats.flushLocked()
	}
}

// flushStats writes the pending --stats lines.
func flushStats() {
	stats.mu.Lock()
	defer stats.mu.Unlock()
	stats.flushLocked()
}

func (s *statsLog) flushLocked() {
	if len(s.buf) > 0 {
		_, _ = os.Stderr.Write(s.buf)
		s.buf = s.buf[:0]
	}
	s.last = time.Now()
}
