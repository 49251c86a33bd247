package cape

// What the translator proved about a region, passed to the monitor
// (monitor.Hint) so that it compares less memory:
//
//   - WritesIn: every write the region makes in the arena is to an element
//     of the slices named (the translator emits it when each write of the
//     region's body is an element of a slice variable that the region does
//     not reassign, and nothing else is written but the body's own
//     variables). The monitor then compares only the pages of those slices.
//   - InLoop: the region is the only one of a loop whose other code
//     (condition, post statement, the body outside the region) writes no
//     arena memory. From the second iteration on, the stretch since the
//     last region's Stop wrote nothing the monitor has to look for, and its
//     Start compares nothing it compared at the last Stop.
//
// The runtime's own writes between regions are announced to the monitor
// (injections) or make the next Start unproven (n.gap.Dirty: a restored
// image, a replayed delta, an allocation, a joiner's catch-up, --verify).
// The bookkeeping and the decision are package hints'; this file holds the
// API generated code calls.

import (
	"unsafe"

	"github.com/cape-go/cape/cape/internal/hints"
	"github.com/cape-go/cape/cape/internal/stats"
	"github.com/cape-go/cape/monitor"
)

// regionHints are what the translator proved about a region (package
// hints: its loop, the arena spans it writes in when bounded), whether it
// is the program's last, and what Start made of them.
type regionHints struct {
	hints.Proof
	last  bool // the program's last region: the slaves leave after it
	clean bool // Start was told the stretch before it was clean
}

// Loop is one entry into a loop that InLoop names: generated code makes
// one with NewLoop just before the loop statement.
type Loop = hints.Loop

// NewLoop returns a new Loop, for the regions of the loop statement that
// follows.
func NewLoop() *Loop { return new(Loop) }

// InLoop says that r is the only region of l's loop, whose code outside r
// writes no arena memory (a proof of the translator: see hint_unsafe.go).
func (r *Region) InLoop(l *Loop) { r.hints.InLoop(l) }

// Last says that r is the program's last parallel region (a proof of the
// translator: no region can run after it, see Region.EndLast). The slaves
// leave after it, so its end sends them none of its bytes, only the values
// of its reductions and lastprivate variables; the master still merges and
// injects everything. Calling it on a region that is not the last would
// leave the slaves' memory behind the master's.
func (r *Region) Last() {
	if r.nested == nil {
		r.hints.last = true
	}
}

// WritesIn adds s's elements to the memory r may write: once it is called,
// r writes the arena only within the elements of the slices named (a
// proof of the translator: see hint_unsafe.go). An empty slice, or one outside
// the arena, adds nothing.
func WritesIn[T any](r *Region, s []T) {
	r.hints.Bound()
	if r.nested != nil || len(s) == 0 {
		return
	}
	mem := r.n.arena.Bytes()
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	base := uintptr(unsafe.Pointer(unsafe.SliceData(mem)))
	r.hints.WritesIn(lo, lo+uintptr(len(s))*unsafe.Sizeof(s[0]), base, base+uintptr(len(mem)))
}

// Updates says that r's loop updates (reads and writes back) shared
// elements at places the translator could not prove distinct per
// iteration (hist[v%4]++, a[perm[i]] += x): at r's end, a byte two nodes
// both changed is a conflict, the job's error naming the nodes and the
// element, even where they wrote the same value. Two updates of one
// element on two nodes each start from the value at the region's entry,
// so they would not add up; where the iterations' elements are in fact
// distinct (a permutation), nothing changes.
func (r *Region) Updates() {
	if r.nested == nil {
		r.updates = true
	}
}

// hint is what Start tells the monitor about r.
func (r *Region) hint() monitor.Hint { return r.hints.Hint(&r.n.gap, r.seq, r.n.plan.Verify) }

// hintStats is the --stats note of what r's Start was told.
func (r *Region) hintStats() string {
	return stats.HintNote(r.hints.Bounded(), r.hints.clean, r.hints.Spans())
}

// ended records, when r (outermost) stops, where the next region's
// stretch starts.
func (r *Region) ended() { r.n.gap.Ended(&r.hints.Proof, r.seq) }
