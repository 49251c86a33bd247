package cape

import "github.com/cape-go/cape/cape/internal/values"

// ArrayReducer is a reduction of a region over an array or a slice of
// numbers (reduction(+:hist) with hist a [8]int64 or a []int64), element by
// element, with OpenMP 4.5's semantics: each node's private copy starts from
// the operator's identity, and Exchange combines the entry value with every
// node's partial result, in rank order. Generated code uses it as:
//
//	histR := cape.ReduceArray(r, cape.OpAdd, hist[:]) // after Start
//	{
//		var hist [8]int64
//		histR.Init(hist[:])
//		for ... { hist[k] += ... }
//		histR.Partial(hist[:])
//	}
//	... Create, Stop, Exchange ...
//	histR.Result(hist[:])
//
// It is used by one goroutine, like its Region.
type ArrayReducer[T Reducible] struct {
	x values.ArrayReducer[T]
}

// ReduceArray registers an elementwise reduction of r with operator op
// whose value before the region is v (copied). Call it after Start.
func ReduceArray[T Reducible](r *Region, op Op, v []T) *ArrayReducer[T] {
	a := &ArrayReducer[T]{}
	var err error
	if a.x, err = values.MakeArrayReducer(values.Op(op), v); err != nil {
		fail(r.wrap("reduction", err))
	}
	r.values.Add(&a.x)
	return a
}

// Init sets every element of p, this node's private copy, to the
// operator's identity.
func (x *ArrayReducer[T]) Init(p []T) { x.x.Init(p) }

// Partial records this node's partial result (copied). Call it before
// Exchange.
func (x *ArrayReducer[T]) Partial(p []T) { x.x.Partial(p) }

// Result copies the reduction's value, the same on every node once Exchange
// has returned, into dst. dst may be arena memory: the next region's Start
// is not told the stretch was clean (hint_unsafe.go).
func (x *ArrayReducer[T]) Result(dst []T) {
	if self != nil {
		self.gap.Dirty()
	}
	x.x.Result(dst)
}
