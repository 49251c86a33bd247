package cape

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
)

// allocation is what the runtime remembers of one arena allocation, to name
// the variable behind an address in --verify reports.
type allocation struct {
	off, size int
	n         int
	typ       string
	where     string // file:line of the allocating call in the user's program
}

var (
	allocMu sync.Mutex
	// allocMu protects the following field.
	allocs []allocation // in offset order: the allocator only bumps
)

func recordAlloc(off, size, n int, typ string) {
	where := caller()
	allocMu.Lock()
	allocs = append(allocs, allocation{off: off, size: size, n: n, typ: typ, where: where})
	allocMu.Unlock()
}

// caller returns file:line of the first frame outside this package.
func caller() string {
	pcs := make([]uintptr, 16)
	k := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:k])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, "github.com/cape-go/cape/cape.") || strings.HasSuffix(f.File, "_test.go") {
			return fmt.Sprintf("%s:%d", f.File, f.Line)
		}
		if !more {
			return "unknown"
		}
	}
}

// describe names the arena byte at off: the allocation and element holding it.
func describe(off int) string {
	allocMu.Lock()
	defer allocMu.Unlock()
	for _, a := range allocs {
		if off >= a.off && off < a.off+a.size {
			elem := a.size / max(a.n, 1)
			if a.n > 1 && elem > 0 {
				return fmt.Sprintf("element [%d] of the []%s allocated at %s", (off-a.off)/elem, a.typ, a.where)
			}
			return fmt.Sprintf("the %s allocated at %s", a.typ, a.where)
		}
	}
	return "no allocation (padding between allocations)"
}

// Verifying reports whether this node re-runs the region sequentially to
// check the parallel result (the master under `cape run --verify`).
// Generated code runs the region's original loop between VerifyBegin and
// VerifyEnd when it is true.
//
// A nested region is never re-run on its own: the enclosing region's re-run
// runs it again.
func (r *Region) Verifying() bool { return r.nested == nil && r.n.verify && r.state == stExchanged }

// VerifyBegin keeps the region's merged result aside and puts the arena back
// in the state it had when the region started, so that the original,
// sequential code can run again from the same state.
//
// Until VerifyEnd, regions begun by the re-run are nested in r: they run
// whole on the master, as they did inside r on the nodes.
func (r *Region) VerifyBegin() {
	mem := r.n.arena.Bytes()[:r.extent]
	r.merged = append(r.merged[:0], mem...)
	copy(mem, r.entry)
	r.n.cur = r
}

// VerifyEnd compares the arena written by the sequential re-run with the
// merged parallel result, restores the merged result, and reports the first
// difference, naming the variable that holds it.
func (r *Region) VerifyEnd() error {
	r.n.cur = nil
	mem := r.n.arena.Bytes()[:r.extent]
	first, count := -1, 0
	for i := range mem {
		if mem[i] != r.merged[i] {
			if first < 0 {
				first = i
			}
			count++
		}
	}
	var err error
	if first >= 0 {
		err = r.errorf("--verify: the parallel run and a sequential re-run differ in %d byte(s) of the arena; the first at offset %#x, in %s: parallel %#02x, sequential %#02x (a write the translator could not see, or an iteration reading what another node wrote)",
			count, first, describe(first), r.merged[first], mem[first])
	}
	copy(mem, r.merged)
	r.merged, r.entry = nil, nil
	return err
}
