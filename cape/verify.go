package cape

import "github.com/cape-go/cape/internal/arena"

// regionVerify is what --verify keeps of a region on the master: the
// arena at Start, and the merged result while the sequential re-run runs.
type regionVerify struct {
	entry, merged []byte
}

// Verifying reports whether this node re-runs the region sequentially to
// check the parallel result (the master under `cape run --verify`).
// Generated code runs the region's original loop between VerifyBegin and
// VerifyEnd when it is true.
//
// A nested region is never re-run on its own: the enclosing region's re-run
// runs it again.
func (r *Region) Verifying() bool {
	return r.nested == nil && r.n.plan.Verify && r.state == stExchanged
}

// VerifyBegin keeps the region's merged result aside and puts the arena back
// in the state it had when the region started, so that the original,
// sequential code can run again from the same state.
//
// Until VerifyEnd, regions begun by the re-run are nested in r: they run
// whole on the master, as they did inside r on the nodes.
func (r *Region) VerifyBegin() {
	v := r.verify
	mem := r.n.arena.Bytes()[:r.extent]
	v.merged = append(v.merged[:0], mem...)
	copy(mem, v.entry)
	r.n.cur = r
	// The parallel run printed the region's output: the re-run's is dropped.
	if err := r.n.out.Begin(); err != nil {
		fail(r.fail(err))
	}
}

// VerifyEnd compares the arena written by the sequential re-run with the
// merged parallel result, restores the merged result, and reports the first
// difference, naming the variable that holds it.
func (r *Region) VerifyEnd() error {
	r.n.cur = nil
	if err := r.n.out.Discard(); err != nil {
		return r.fail(err)
	}
	v := r.verify
	mem := r.n.arena.Bytes()[:r.extent]
	first, count := arena.Diff(mem, v.merged)
	var err error
	if first >= 0 {
		in := allocTable.Describe(first)
		if in == "" {
			in = "no live allocation"
		}
		err = r.errorf("--verify: the parallel run and a sequential re-run differ in %d byte(s) of the arena; the first at offset %#x, in %s: parallel %#02x, sequential %#02x (a write the translator could not see, an iteration reading what another node wrote, or sequential code that computed other values on another node: random numbers, the order of a map)",
			count, first, in, v.merged[first], mem[first])
	}
	copy(mem, v.merged)
	r.verify = nil
	if err == nil {
		r.n.verified++
	}
	return err
}
