package cape

// The runtime's API is spread over this package's files: this one (Must,
// Master, Rank, Size, the options of Init), node.go (Init, Finalize),
// alloc_unsafe.go (Make, New, Alloc, Free),
// region.go (Begin, Region.Start/Static/Chunks/Sections/Create/End(Stop)/
// Exchange/EndLast), values.go (Reduction, LastPrivate), loops.go (LoopCount:
// a parallel loop's count, checked to end as go run's).

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
		~float32 | ~float64 | ~complex64 | ~complex128 | ~bool
}

// An Option is a fact about the whole program that the translator proved,
// given to Init.
type Option func(*options)

type options struct {
	everyRegionLast bool
	goRegions       bool
}

// EveryRegionLast says that every parallel region of the program is its
// last (Region.Last): the slaves leave after the first one that runs, so
// no slave ever reads memory that another node wrote, and the default
// transfer (auto) does not set up lazy transfer, whose helpers would only
// cost the job their start.
func EveryRegionLast() Option { return func(o *options) { o.everyRegionLast = true } }

// GoroutineRegions says that the program starts goroutines, one of which
// may run its regions while main waits: a Guard then tells the regions of
// its own goroutine from those of another.
func GoroutineRegions() Option { return func(o *options) { o.goRegions = true } }

// Must ends the node when err is not nil: with status 0 for ErrJobDone,
// and otherwise with status 1, reporting err on stderr naming this node (the
// master also tells the slaves that the job failed). Generated code calls it
// around runtime calls.
func Must(err error) {
	if err != nil {
		fail(err)
	}
}

// Master reports whether this node is the master (rank 0).
func Master() bool { return the().rank == 0 }

// Rank is this node's rank in [0, Size()).
func Rank() int { return the().rank }

// Size is the number of nodes in the job.
func Size() int { return the().size }
