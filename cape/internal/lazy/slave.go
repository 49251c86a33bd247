package lazy

import (
	"errors"
	"fmt"

	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/internal/pager"
	"github.com/cape-go/cape/monitor"
)

// Helper is what a Slave needs of its pager helper (*pager.Helper): the
// shared record of the pages the node lacks, the version its fetches ask
// for, the bytes it fetched, and its end.
type Helper interface {
	Invalid(p int) bool
	MarkInvalid(p int)
	ClearInvalid(p int)
	SetVersion(seq uint64)
	TakeFetched() int
	Done() <-chan struct{}
	Err() error
	Close() error
}

// Slave is a slave's side of lazy transfer: its tracker and its pager
// helper. It is not safe for concurrent use: the region's goroutine uses
// it, apart from Done and Err.
type Slave struct {
	tr      monitor.Lazy
	h       Helper
	ps      int
	notices []int // the last Open's, reused
}

// NewSlave returns the slave's side of lazy transfer over tr, whose pages
// h fetches, once h is connected.
func NewSlave(tr monitor.Lazy, h Helper, pageSize int) *Slave {
	return &Slave{tr: tr, h: h, ps: pageSize}
}

// StartSlave starts the slave's pager helper for tr (cfg less the
// tracker's descriptors, which it adds) and waits for its connection to
// the master's page server: the server waits for every slave's helper, so
// a node lost before its helper connected would keep it waiting until the
// handshake timeout, and then fail every other node's helper with it. From
// then on tr skips the pages the helper records as absent.
func StartSlave(cfg pager.Config, tr monitor.Lazy) (*Slave, error) {
	cfg.UffdFD, cfg.TwinFD = tr.UffdFD(), tr.TwinFD()
	h, err := pager.Start(cfg)
	if err != nil {
		return nil, err
	}
	if err := h.Ready(); err != nil {
		return nil, errors.Join(err, h.Close())
	}
	tr.SetAbsent(h.Invalid)
	return NewSlave(tr, h, cfg.PageSize), nil
}

// Done is closed when the helper ends; Err then says why.
func (s *Slave) Done() <-chan struct{} { return s.h.Done() }

// Err returns why the helper ended.
func (s *Slave) Err() error { return s.h.Err() }

// TakeFetched returns the bytes of pages the helper fetched since the
// last call.
func (s *Slave) TakeFetched() int { return s.h.TakeFetched() }

// Close stops the helper (Finalize).
func (s *Slave) Close() error { return s.h.Close() }

// Open reads the notices of a lazy merged payload for a region of extent
// bytes and returns its envelope, which aliases payload.
func (s *Slave) Open(payload []byte, extent int) ([]byte, error) {
	notices, env, err := OpenMerged(payload, extent/s.ps, s.notices)
	if err != nil {
		return nil, err
	}
	s.notices = notices
	return env, nil
}

// Apply writes the pushed runs of d into arena (up to the region's
// extent). A whole page that this node lacks is installed (it would
// otherwise fault and be fetched); a part of one is an error: the master
// pushes only whole pages where a slave lacks them.
func (s *Slave) Apply(d *delta.Delta, arena []byte) error {
	ps := s.ps
	for _, run := range d.Runs {
		off, data := int(run.Off), run.Data
		if off+len(data) > len(arena) {
			return fmt.Errorf("pushed run [%#x, %#x) past the region's extent %#x", off, off+len(data), len(arena))
		}
		for len(data) > 0 {
			p := off / ps
			k := min(len(data), (p+1)*ps-off)
			if s.h.Invalid(p) {
				if k != ps {
					return fmt.Errorf("the master pushed part of page %d, which this node lacks", p)
				}
				ok, err := s.tr.Install(p, data[:k])
				if err != nil {
					return err
				}
				if !ok {
					return fmt.Errorf("page %d is marked invalid but present", p)
				}
				s.h.ClearInvalid(p)
			} else {
				copy(arena[off:off+k], data[:k])
			}
			off, data = off+k, data[k:]
		}
	}
	return nil
}

// Invalidate invalidates the pages the last Open noticed, after Apply,
// and moves the helper's fetches to region seq's result.
func (s *Slave) Invalidate(seq uint64) error {
	for _, p := range s.notices {
		s.h.MarkInvalid(p)
	}
	if err := s.tr.Invalidate(s.notices); err != nil {
		return err
	}
	s.h.SetVersion(seq)
	return nil
}
