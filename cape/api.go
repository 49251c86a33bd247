package cape

// The runtime's API is spread over this package's files: node.go (Init,
// Finalize, Must, Master, Rank, Size), alloc_unsafe.go (Make, New, Alloc, Free),
// region.go (Begin, Region.Start/Static/Chunks/Sections/Create/End(Stop)/
// Exchange/EndLast), values.go (Reduction, LastPrivate).

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
