package cape

import (
	"iter"

	"github.com/cape-go/cape/delta"
)

// Schedule is an OpenMP loop schedule kind.
type Schedule int

// Schedules.
const (
	Static Schedule = iota
	Dynamic
	Guided
)

// Op is a reduction operator.
type Op int

// Reduction operators, in OpenMP spelling: + * - & | ^ && || min max.
const (
	OpAdd Op = iota
	OpMul
	OpSub
	OpAnd
	OpOr
	OpXor
	OpLAnd
	OpLOr
	OpMin
	OpMax
)

// Reducible are the types a reduction clause may name.
type Reducible interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64 | ~bool
}

// Init joins the job described by the launcher's environment (rank, size,
// master address, token). Without that environment the program runs as a
// single node (rank 0 of 1). It is idempotent.
func Init() error { panic("unimplemented") }

// Finalize ends the job: the master tells the slaves to stop; a slave closes
// its connection. It is idempotent.
func Finalize() error { panic("unimplemented") }

// Must reports err, naming this node, and ends the node with status 1 when
// err is not nil. Generated code calls it around runtime calls.
func Must(err error) { panic("unimplemented") }

// Master reports whether this node is the master (rank 0).
func Master() bool { panic("unimplemented") }

// Rank is this node's rank in [0, Size()).
func Rank() int { panic("unimplemented") }

// Size is the number of nodes in the job.
func Size() int { panic("unimplemented") }

// Make allocates n zeroed elements of T in the arena. T must not contain
// pointers. Like the built-in make, it panics (with an *AllocError) when it
// cannot allocate; Alloc returns the error instead.
func Make[T any](n int) []T { panic("unimplemented") }

// New allocates one zeroed T in the arena; see Make.
func New[T any]() *T { panic("unimplemented") }

// Alloc is Make returning an error instead of panicking.
func Alloc[T any](n int) ([]T, error) { panic("unimplemented") }

// Region is one execution of a parallel region. Every node creates its
// regions in the same order (they run the same sequential code).
type Region struct{}

// Begin describes the next parallel region; name identifies it in errors
// (the translator passes "file.go:line:col"). It does not arm anything.
func Begin(name string) *Region { panic("unimplemented") }

// Start arms the monitor on the arena: from here until Stop every write to
// the arena is recorded. Allocation in the arena is refused until Stop.
func (r *Region) Start() error { panic("unimplemented") }

// Static returns this node's contiguous block [lo, hi) of the iteration
// space [0, count) (schedule(static) without a chunk size).
func (r *Region) Static(count int) (lo, hi int) { panic("unimplemented") }

// Chunks yields this node's chunks [lo, hi) of [0, count) in increasing
// order: static with chunk > 0 is block-cyclic by rank; dynamic and guided
// chunks are handed out by the master at run time (chunk ≤ 0 means 1 for
// dynamic and the minimum size for guided).
func (r *Region) Chunks(count int, sched Schedule, chunk int) iter.Seq2[int, int] {
	panic("unimplemented")
}

// Sections yields the indices in [0, n) of the sections this node runs.
func (r *Region) Sections(n int, sched Schedule) iter.Seq[int] { panic("unimplemented") }

// Create returns what this node wrote in the arena since Start, as a delta.
func (r *Region) Create() (*delta.Delta, error) { panic("unimplemented") }

// Stop disarms the monitor.
func (r *Region) Stop() error { panic("unimplemented") }

// Exchange makes every node's arena equal: the master gathers the slaves'
// deltas, merges them with its own (a conflict is an error naming both
// nodes), injects the result and sends it to the slaves; a slave sends d and
// injects the merged delta it receives. Registered reductions and lastprivate
// values are combined in the same exchange.
func (r *Region) Exchange(d *delta.Delta) error { panic("unimplemented") }

// EndLast is called after Exchange of a region that is the program's last:
// on a slave it finalizes and exits with status 0, so that the sequential
// code after the last region runs on the master only.
func (r *Region) EndLast() { panic("unimplemented") }

// Reduction registers *v as a reduction variable of r with operator op. Call
// it after Start and before the region's work: it records *v and sets it to
// op's identity; Exchange combines the recorded value with every node's
// partial result and stores the result in *v on every node.
func Reduction[T Reducible](r *Region, op Op, v *T) { panic("unimplemented") }

// LastPrivate registers *v as a lastprivate variable of r: at Exchange the
// value held by the node for which owner is true (the node that ran the
// sequentially last iteration or section) is stored in *v on every node. T
// must not contain pointers.
func LastPrivate[T any](r *Region, v *T, owner bool) { panic("unimplemented") }
