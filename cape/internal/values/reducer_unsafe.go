package values

import (
	"fmt"
	"reflect"
	"unsafe"
)

// rawBytes is *v's memory (aliasing it).
func rawBytes[T any](v *T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(v)), unsafe.Sizeof(*v))
}

// sliceBytes is s's elements' memory (aliasing them), nil when s is empty.
func sliceBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}

// Reducer is a scalar reduction, passed by value so that the loop's
// accumulator stays a local the compiler can keep in a register (see
// cape.Reducer, an alias of it, for how generated code uses it). It is
// used by one goroutine, like its region.
type Reducer[T Reducible] struct {
	op                 Op
	orig, part, result T
	id                 T
}

// NewReducer returns a reduction with operator op whose value before the
// region is v; its partial starts from op's identity. An operator that
// does not apply to T is an error.
func NewReducer[T Reducible](op Op, v T) (*Reducer[T], error) {
	id, err := Identity[T](op)
	if err != nil {
		return nil, err
	}
	return &Reducer[T]{op: op, orig: v, part: id, result: v, id: id}, nil
}

// Identity is the operator's identity: the initial value of this node's
// partial result.
func (x *Reducer[T]) Identity() T { return x.id }

// Partial records this node's partial result. Call it before Exchange.
func (x *Reducer[T]) Partial(v T) { x.part = v }

// Result is the reduction's value, the same on every node, once Exchange
// has returned.
func (x *Reducer[T]) Result() T { return x.result }

// PartialBytes is this node's partial (aliasing it).
func (x *Reducer[T]) PartialBytes() []byte { return rawBytes(&x.part) }

// Bytes is the result (aliasing it).
func (x *Reducer[T]) Bytes() []byte { return rawBytes(&x.result) }

// Set stores the result computed by the master.
func (x *Reducer[T]) Set(b []byte) error {
	if len(b) != len(rawBytes(&x.result)) {
		return fmt.Errorf("reduction result of %d bytes, want %d", len(b), len(rawBytes(&x.result)))
	}
	copy(rawBytes(&x.result), b)
	return nil
}

// Combine folds the value before the region with every node's partial, in
// rank order, into the result.
func (x *Reducer[T]) Combine(parts [][]byte) error {
	acc := x.orig
	accV := reflect.ValueOf(&acc).Elem()
	for rank, p := range parts {
		var t T
		if len(p) != len(rawBytes(&t)) {
			return fmt.Errorf("node %d sent a reduction partial of %d bytes, want %d", rank, len(p), len(rawBytes(&t)))
		}
		copy(rawBytes(&t), p)
		if err := combine(x.op, accV, reflect.ValueOf(t)); err != nil {
			return err
		}
	}
	x.result = acc
	return nil
}

// through is a reduction through a pointer (cape.Reduction): a Reducer
// whose partial is read from, and whose result is written to, *v.
type through[T Reducible] struct {
	*Reducer[T]
	v *T
}

// Through returns x as a Value whose partial is *v's value when it is
// taken and whose result is also stored in *v.
func Through[T Reducible](x *Reducer[T], v *T) Value { return through[T]{x, v} }

func (x through[T]) PartialBytes() []byte {
	x.Partial(*x.v)
	return x.Reducer.PartialBytes()
}

func (x through[T]) Set(b []byte) error {
	if err := x.Reducer.Set(b); err != nil {
		return err
	}
	*x.v = x.Result()
	return nil
}

func (x through[T]) Combine(parts [][]byte) error {
	if err := x.Reducer.Combine(parts); err != nil {
		return err
	}
	*x.v = x.Result()
	return nil
}
