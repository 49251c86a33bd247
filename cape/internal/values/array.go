package values

import "fmt"

// ArrayReducer is an element-by-element reduction over an array or a
// slice of numbers, with OpenMP 4.5's semantics: each node's private copy
// starts from the operator's identity, and the result folds the entry
// value with every node's partial, in rank order. It is used by one
// goroutine, like its region.
type ArrayReducer[T Reducible] struct {
	op                 Op
	orig, part, result []T
	id                 T
}

// MakeArrayReducer returns an elementwise reduction with operator op whose
// value before the region is v (copied), by value so that the caller can
// hold it in its own allocation. An operator that does not apply to T is an
// error.
func MakeArrayReducer[T Reducible](op Op, v []T) (ArrayReducer[T], error) {
	id, err := Identity[T](op)
	if err != nil {
		return ArrayReducer[T]{}, err
	}
	x := ArrayReducer[T]{op: op, orig: append([]T(nil), v...), id: id}
	x.part = make([]T, len(v))
	x.Init(x.part)
	x.result = append([]T(nil), v...)
	return x, nil
}

// Init sets every element of p, a node's private copy, to the operator's
// identity.
func (x *ArrayReducer[T]) Init(p []T) {
	for i := range p {
		p[i] = x.id
	}
}

// Partial records this node's partial result (copied).
func (x *ArrayReducer[T]) Partial(p []T) { copy(x.part, p) }

// Result copies the reduction's value into dst.
func (x *ArrayReducer[T]) Result(dst []T) { copy(dst, x.result) }

// PartialBytes is this node's partial (aliasing it).
func (x *ArrayReducer[T]) PartialBytes() []byte { return sliceBytes(x.part) }

// Bytes is the result (aliasing it until the next Combine).
func (x *ArrayReducer[T]) Bytes() []byte { return sliceBytes(x.result) }

// Set stores the result computed by the master.
func (x *ArrayReducer[T]) Set(b []byte) error {
	if want := len(sliceBytes(x.result)); len(b) != want {
		return fmt.Errorf("array reduction result of %d bytes, want %d", len(b), want)
	}
	copy(sliceBytes(x.result), b)
	return nil
}

// Combine folds the value before the region with every node's partial,
// element by element and in rank order, into the result.
func (x *ArrayReducer[T]) Combine(parts [][]byte) error {
	acc := append([]T(nil), x.orig...)
	p := make([]T, len(acc))
	for rank, b := range parts {
		if want := len(sliceBytes(p)); len(b) != want {
			return fmt.Errorf("node %d sent an array reduction partial of %d bytes, want %d", rank, len(b), want)
		}
		copy(sliceBytes(p), b)
		if err := foldArray(x.op, acc, p); err != nil {
			return err
		}
	}
	x.result = acc
	return nil
}
