package launch

import (
	"bufio"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/cape-go/cape/internal/nodeenv"
)

// statusPipe collects the nodes' failure reports (nodeenv.Report lines). A
// nil *statusPipe has no reports. Its methods are safe for concurrent use.
type statusPipe struct {
	w     *os.File // the nodes' end; closed here once every node started
	done  chan struct{}
	lost  chan int      // the slaves the master declared lost (nodeenv.Lost)
	ended chan struct{} // closed once the master's program ended by itself (nodeenv.Ended)

	mu sync.Mutex
	// mu protects the following fields.
	reps     []nodeenv.Report
	declared map[int]bool // the ranks the master declared lost
	closed   bool         // w was closed
}

func newStatusPipe() (*statusPipe, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("status pipe: %w", err)
	}
	s := &statusPipe{w: w, done: make(chan struct{}), lost: make(chan int, 64), ended: make(chan struct{})}
	go s.read(r)
	return s, nil
}

// read collects report lines from r until its end, skipping lines that are
// not reports or are too long to be.
func (s *statusPipe) read(r *os.File) {
	defer close(s.done)
	defer r.Close()
	br := bufio.NewReaderSize(r, nodeenv.MaxReport)
	long := false // in the rest of an overlong line
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = true
			continue
		}
		if err != nil {
			return
		}
		if !long {
			if rep, err := nodeenv.ParseReport(string(line)); err == nil {
				s.mu.Lock()
				s.reps = append(s.reps, rep)
				s.mu.Unlock()
			} else if e, err := nodeenv.ParseEnded(string(line)); err == nil && e.Rank == 0 {
				select {
				case <-s.ended:
				default:
					close(s.ended) // this goroutine alone closes it
				}
			} else if l, err := nodeenv.ParseLost(string(line)); err == nil {
				s.mu.Lock()
				if s.declared == nil {
					s.declared = map[int]bool{}
				}
				s.declared[l.Rank] = true
				s.mu.Unlock()
				select {
				case s.lost <- l.Rank:
				default: // the supervisor is behind: it stops lost nodes at the end anyway
				}
			}
		}
		long = false
	}
}

// declaredLost reports whether the master declared the slave rank lost.
func (s *statusPipe) declaredLost(rank int) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.declared[rank]
}

// masterEnded reports whether the master said its program ended by itself,
// waiting up to wait for the word (it is written before the master exits,
// but may still be in the pipe when its end is seen).
func (s *statusPipe) masterEnded(wait time.Duration) bool {
	if s == nil {
		return false
	}
	select {
	case <-s.ended:
		return true
	case <-s.done: // every writer has ended: what was read is all
	case <-time.After(wait):
	}
	select {
	case <-s.ended:
		return true
	default:
		return false
	}
}

// lostRanks delivers the ranks the master declared lost; nil (never ready)
// if there is no pipe.
func (s *statusPipe) lostRanks() <-chan int {
	if s == nil {
		return nil
	}
	return s.lost
}

// writer is the end to pass to the nodes, nil if there is no pipe.
func (s *statusPipe) writer() *os.File {
	if s == nil {
		return nil
	}
	return s.w
}

func (s *statusPipe) closeWriter() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		s.w.Close()
	}
}

// reports returns the reports read so far, after waiting up to wait for the
// pipe's end (every node that held it ended).
func (s *statusPipe) reports(wait time.Duration) []nodeenv.Report {
	if s == nil {
		return nil
	}
	select {
	case <-s.done:
	case <-time.After(wait):
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]nodeenv.Report(nil), s.reps...)
}
