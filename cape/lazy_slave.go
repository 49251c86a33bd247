package cape

import (
	"fmt"

	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/internal/pager"
	"github.com/cape-go/cape/monitor"
)

// lazySlave is a slave's side of lazy transfer: its tracker and its pager
// helper. It is used by the region's goroutine only.
type lazySlave struct {
	tr      monitor.Lazy
	h       *pager.Helper
	ps      int
	notices []int // reused
}

// applyLazy is a slave's end of a lazy exchange: it applies the values and
// the pushed bytes of a lazy merged payload, invalidates the noticed pages,
// and moves the helper's fetches to this region's result. own is the
// node's delta of the region, for --stats.
func (r *Region) applyLazy(payload []byte, own *delta.Delta) error {
	n := r.n
	ls := n.lazyS
	notices, env, err := openLazyMerged(payload, r.extent/ls.ps, ls.notices)
	if err != nil {
		return r.wrap("merged delta from the master", err)
	}
	ls.notices = notices
	vals, md, err := r.open(env)
	if err == nil {
		err = checkLabel(md, r.seq, delta.Merged)
	}
	if err != nil {
		return r.wrap("merged delta from the master", err)
	}
	// Values first: a malformed one is an error before any byte of the
	// arena is written.
	if err := r.setValues(vals); err != nil {
		return err
	}
	if err := n.willInject(md); err != nil {
		return r.wrap("merged delta from the master", err)
	}
	if err := ls.apply(md, n.arena.Bytes()[:r.extent]); err != nil {
		return r.wrap("merged delta from the master", err)
	}
	if n.stats {
		r.mergedIn, r.ownIn = md.Len(), delta.Overlap(md.Runs, own.Runs)
	}
	// The helper is connected: agreeLazySlave waited for it at set-up.
	for _, p := range notices {
		ls.h.MarkInvalid(p)
	}
	if err := ls.tr.Invalidate(notices); err != nil {
		return r.wrap("lazy pages", err)
	}
	ls.h.SetVersion(r.seq)
	return nil
}

// apply writes the pushed runs of d into mem. A whole page that this node
// lacks is installed (it would otherwise fault and be fetched); a part of
// one is an error: the master pushes only whole pages where a slave lacks
// them.
func (ls *lazySlave) apply(d *delta.Delta, mem []byte) error {
	ps := ls.ps
	for _, run := range d.Runs {
		off, data := int(run.Off), run.Data
		if off+len(data) > len(mem) {
			return fmt.Errorf("pushed run [%#x, %#x) past the region's extent %#x", off, off+len(data), len(mem))
		}
		for len(data) > 0 {
			p := off / ps
			k := min(len(data), (p+1)*ps-off)
			if ls.h.Invalid(p) {
				if k != ps {
					return fmt.Errorf("the master pushed part of page %d, which this node lacks", p)
				}
				ok, err := ls.tr.Install(p, data[:k])
				if err != nil {
					return err
				}
				if !ok {
					return fmt.Errorf("page %d is marked invalid but present", p)
				}
				ls.h.ClearInvalid(p)
			} else {
				copy(mem[off:off+k], data[:k])
			}
			off, data = off+k, data[k:]
		}
	}
	return nil
}
