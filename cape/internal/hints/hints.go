package hints

import "github.com/cape-go/cape/monitor"

// Loop is one entry into a loop whose only region is proved clean: the
// generated code makes one just before the loop statement. Only its
// identity matters.
type Loop struct{ _ byte }

// Proof is what the translator proved about one region: its loop, and the
// arena spans it writes in when bounded. The zero Proof proves nothing.
type Proof struct {
	loop    *Loop
	bounded bool
	spans   []monitor.Span
	spanBuf [2]monitor.Span // spans' first storage: no allocation per region
}

// InLoop records that the region is the only one of l's loop, whose code
// outside the region writes no arena memory.
func (p *Proof) InLoop(l *Loop) { p.loop = l }

// Bound records that the region writes the arena only within the spans
// added with WritesIn (none: it writes no arena memory).
func (p *Proof) Bound() { p.bounded = true }

// WritesIn adds the bytes [lo, hi), addresses, to the spans the region may
// write, as offsets in the arena [base, top). What lies outside the arena
// adds nothing; call Bound too.
func (p *Proof) WritesIn(lo, hi, base, top uintptr) {
	lo, hi = max(lo, base), min(hi, top)
	if lo >= hi {
		return
	}
	if p.spans == nil {
		p.spans = p.spanBuf[:0]
	}
	p.spans = append(p.spans, monitor.Span{Off: int(lo - base), Len: int(hi - lo)})
}

// Bounded reports whether the region's writes are bounded by its spans.
func (p *Proof) Bounded() bool { return p.bounded }

// Spans returns the number of spans the region writes in.
func (p *Proof) Spans() int { return len(p.spans) }

// Gap is what a node knows of the stretch of sequential code since the last
// outermost region stopped. The zero Gap is before the first region.
type Gap struct {
	loop  *Loop  // the last region's loop, or nil
	seq   uint64 // the last region's number
	dirty bool   // the runtime wrote arena memory the monitor was not told of
}

// Dirty records that the runtime wrote arena memory the monitor was not
// told of, since the last region.
func (g *Gap) Dirty() { g.dirty = true }

// Ended records that the outermost region numbered seq, proved p, stopped:
// the next stretch starts.
func (g *Gap) Ended(p *Proof, seq uint64) { g.loop, g.seq, g.dirty = p.loop, seq, false }

// Hint is what the monitor is told at the Start of the region numbered seq,
// proved p, after the stretch g; verify says whether --verify is on (its
// re-runs rewrite the arena between regions). Its Writes alias p's spans.
func (p *Proof) Hint(g *Gap, seq uint64, verify bool) monitor.Hint {
	clean := p.loop != nil && g.loop == p.loop && g.seq+1 == seq && !g.dirty && !verify
	return monitor.Hint{Clean: clean, Bounded: p.bounded, Writes: p.spans}
}
