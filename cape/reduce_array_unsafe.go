package cape

import (
	"fmt"
	"reflect"
	"unsafe"
)

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
	op                 Op
	orig, part, result []T
	id                 T
}

// ReduceArray registers an elementwise reduction of r with operator op
// whose value before the region is v (copied). Call it after Start.
func ReduceArray[T Reducible](r *Region, op Op, v []T) *ArrayReducer[T] {
	x := &ArrayReducer[T]{op: op, orig: append([]T(nil), v...)}
	if err := identity(op, reflect.ValueOf(&x.id).Elem()); err != nil {
		fail(r.wrap("reduction", err))
	}
	x.part = make([]T, len(v))
	x.Init(x.part)
	x.result = append([]T(nil), v...)
	r.values = append(r.values, x)
	return x
}

// Init sets every element of p, this node's private copy, to the
// operator's identity.
func (x *ArrayReducer[T]) Init(p []T) {
	for i := range p {
		p[i] = x.id
	}
}

// Partial records this node's partial result (copied). Call it before
// Exchange.
func (x *ArrayReducer[T]) Partial(p []T) { copy(x.part, p) }

// Result copies the reduction's value, the same on every node once Exchange
// has returned, into dst. dst may be arena memory: the next region's Start
// is not told the stretch was clean (hint_unsafe.go).
func (x *ArrayReducer[T]) Result(dst []T) {
	if self != nil {
		self.dirtyGap()
	}
	copy(dst, x.result)
}

func sliceBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}

func (x *ArrayReducer[T]) partial() []byte { return sliceBytes(x.part) }
func (x *ArrayReducer[T]) bytes() []byte   { return sliceBytes(x.result) }

func (x *ArrayReducer[T]) set(b []byte) error {
	if want := len(sliceBytes(x.result)); len(b) != want {
		return fmt.Errorf("array reduction result of %d bytes, want %d", len(b), want)
	}
	copy(sliceBytes(x.result), b)
	return nil
}

func (x *ArrayReducer[T]) combine(parts [][]byte) error {
	acc := append([]T(nil), x.orig...)
	p := make([]T, len(acc))
	for rank, b := range parts {
		if want := len(sliceBytes(p)); len(b) != want {
			return fmt.Errorf("node %d sent an array reduction partial of %d bytes, want %d", rank, len(b), want)
		}
		copy(sliceBytes(p), b)
		for i := range acc {
			if err := combine(x.op, reflect.ValueOf(&acc[i]).Elem(), reflect.ValueOf(p[i])); err != nil {
				return err
			}
		}
	}
	x.result = acc
	return nil
}
