package cape

import (
	"github.com/cape-go/cape/cape/internal/exchange"
	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/delta"
)

// applyLazy is a slave's end of a lazy exchange: it applies the values and
// the pushed bytes of a lazy merged payload, invalidates the noticed pages,
// and moves the helper's fetches to this region's result. own is the
// node's delta of the region, for --stats. The merged delta is decoded
// into the exchange's storage, as an eager one is (exchangeSlave), and
// released before the payload it aliases.
func (r *Region) applyLazy(payload []byte, own *delta.Delta) error {
	n := r.n
	ls := n.lazyS
	env, err := ls.Open(payload, r.extent)
	if err != nil {
		return r.wrap("merged delta from the master", err)
	}
	md := &n.xch.In[0]
	defer exchange.Release(md)
	vals, err := wire.OpenLabelled(env, md, r.limits(), r.seq, delta.Merged)
	if err != nil {
		return r.wrap("merged delta from the master", err)
	}
	if err := r.injectMerged(vals, md, own, func(arena []byte) error { return ls.Apply(md, arena) }); err != nil {
		return err
	}
	// The helper is connected: startPager waited for it at set-up.
	if err := ls.Invalidate(r.seq); err != nil {
		return r.wrap("lazy pages", err)
	}
	return nil
}
