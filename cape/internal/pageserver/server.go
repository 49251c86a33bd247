// Package pageserver owns a node's side of serving pages under
// distributed homes (--transfer homes, docs/homes.md): at each release it
// publishes, in the snapshot its pager helper serves from, the pages the
// node now holds, and drops those it no longer holds; at a region's end it
// says which of the pages the node wrote other nodes fetched before, to be
// pushed to them. The serving itself is the helper's (package pager), in
// its own process, so that it never needs the node's Go scheduler: a node
// whose threads wait in page faults, or are stopped for a garbage
// collection, still serves its pages. The package holds no pointer into
// the runtime, no socket and no clock.
package pageserver

import (
	"math/bits"

	"github.com/cape-go/cape/cape/internal/wire"
)

// Store is what a Server needs of the node's pager helper (*pager.Helper):
// the snapshot it serves from, the held pages, the version (BeginUpdate
// stops the serving, SetVersion resumes it as of a region), and the
// readers its server recorded.
type Store interface {
	Snapshot() []byte
	BeginUpdate()
	SetVersion(seq uint64)
	SetHeld(p int, held bool)
	Readers(p int) uint64
}

// Server is a node's side of serving pages. It is used by the region's
// goroutine only.
type Server struct {
	st   Store
	rank int
	ps   int
	// fromReplica: the helper serves from the node's own replica (self
	// replicas), which has every page the node holds: no snapshot copy.
	fromReplica bool
	// kept, if set, is told each run of pages Update copied into the
	// snapshot (OnKept).
	kept func(lo, hi int)
}

// OnKept has Update call kept with each run of pages it copies into the
// snapshot, after the copy: the node's tracker reads them there as their
// twins (monitor.Lazy.Kept) while they do not change.
func (s *Server) OnKept(kept func(lo, hi int)) { s.kept = kept }

// New returns the Server of node rank over st, for pages of ps bytes.
func New(st Store, rank, ps int) *Server {
	return &Server{st: st, rank: rank, ps: ps}
}

// ServeFromReplica says that the helper serves the node's pages from the
// node's own replica (self replicas, where the node stored every page it
// wrote before its notice): Update copies nothing into the snapshot.
func (s *Server) ServeFromReplica() { s.fromReplica = true }

// Update takes the release of region seq: of the pages homes name, it
// copies into the snapshot those this node now holds (from arena, the
// node's memory after the release was applied; unless ServeFromReplica)
// and drops the others; then the helper serves version seq.
func (s *Server) Update(seq uint64, homes []wire.Home, arena []byte) {
	ps := s.ps
	snap := s.st.Snapshot()
	s.st.BeginUpdate()
	for _, h := range homes {
		mine := h.Holder == s.rank
		if mine && !s.fromReplica {
			copy(snap[h.Lo*ps:h.Hi*ps], arena[h.Lo*ps:h.Hi*ps])
			if s.kept != nil {
				s.kept(h.Lo, h.Hi)
			}
		}
		for p := h.Lo; p < h.Hi; p++ {
			s.st.SetHeld(p, mine)
		}
	}
	s.st.SetVersion(seq)
}

// Pushes appends to out, in ascending pages, the pages written (this
// node's writes in a region) that other nodes fetched from it before, with
// those nodes and the page's bytes (from arena, the node's memory at the
// region's end, aliased): its notice carries them, and the master forwards
// each to its readers with the release (a page read once is pushed from
// then on; readers from rank 64 on are not recorded).
func (s *Server) Pushes(written []wire.PageRange, arena []byte, out []wire.Push) []wire.Push {
	for _, r := range written {
		for p := r.Lo; p < r.Hi; p++ {
			m := s.st.Readers(p) &^ (1 << s.rank)
			if m == 0 {
				continue
			}
			readers := make([]int, 0, bits.OnesCount64(m))
			for m != 0 {
				readers = append(readers, bits.TrailingZeros64(m))
				m &= m - 1
			}
			out = append(out, wire.Push{Page: p, Readers: readers, Data: arena[p*s.ps : (p+1)*s.ps]})
		}
	}
	return out
}
