package values

import (
	"fmt"
	"math"
	"reflect"
	"unsafe"
)

// foldArray sets acc[i] = acc[i] op p[i] for every i < len(acc) (len(p) ==
// len(acc)), with combine's semantics, but without reflection per element:
// T's kind, looked up once, picks a loop over its underlying type (an
// array reduction's master folds every element of every node's partial at
// every region).
func foldArray[T Reducible](op Op, acc, p []T) error {
	if len(acc) == 0 {
		return nil
	}
	switch reflect.TypeFor[T]().Kind() {
	case reflect.Bool:
		foldBools(op, as[bool](acc), as[bool](p))
	case reflect.Int:
		foldInts(op, as[int](acc), as[int](p))
	case reflect.Int8:
		foldInts(op, as[int8](acc), as[int8](p))
	case reflect.Int16:
		foldInts(op, as[int16](acc), as[int16](p))
	case reflect.Int32:
		foldInts(op, as[int32](acc), as[int32](p))
	case reflect.Int64:
		foldInts(op, as[int64](acc), as[int64](p))
	case reflect.Uint:
		foldInts(op, as[uint](acc), as[uint](p))
	case reflect.Uint8:
		foldInts(op, as[uint8](acc), as[uint8](p))
	case reflect.Uint16:
		foldInts(op, as[uint16](acc), as[uint16](p))
	case reflect.Uint32:
		foldInts(op, as[uint32](acc), as[uint32](p))
	case reflect.Uint64:
		foldInts(op, as[uint64](acc), as[uint64](p))
	case reflect.Uintptr:
		foldInts(op, as[uintptr](acc), as[uintptr](p))
	case reflect.Float32:
		return foldFloats(op, as[float32](acc), as[float32](p), reflect.TypeFor[T]())
	case reflect.Float64:
		return foldFloats(op, as[float64](acc), as[float64](p), reflect.TypeFor[T]())
	case reflect.Complex64:
		return foldComplex(op, as[complex64](acc), as[complex64](p), reflect.TypeFor[T]())
	case reflect.Complex128:
		return foldComplex(op, as[complex128](acc), as[complex128](p), reflect.TypeFor[T]())
	}
	return nil
}

// foldComplex computes in complex128 and rounds to T, as combine does.
func foldComplex[T complex64 | complex128](op Op, acc, p []T, t reflect.Type) error {
	switch op {
	case Add, Sub:
		for i := range acc {
			acc[i] = T(complex128(acc[i]) + complex128(p[i]))
		}
	case Mul:
		for i := range acc {
			acc[i] = T(complex128(acc[i]) * complex128(p[i]))
		}
	default:
		return fmt.Errorf("operator %v does not apply to %s", op, t)
	}
	return nil
}

// as is s's elements as their underlying type U (aliasing them).
func as[U, T any](s []T) []U {
	return unsafe.Slice((*U)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

func foldBools(op Op, acc, p []bool) {
	switch op {
	case LAnd, And, Mul, Min:
		for i := range acc {
			acc[i] = acc[i] && p[i]
		}
	case LOr, Or, Add, Sub, Max:
		for i := range acc {
			acc[i] = acc[i] || p[i]
		}
	case Xor:
		for i := range acc {
			acc[i] = acc[i] != p[i]
		}
	}
}

func foldInts[T integer](op Op, acc, p []T) {
	for i := range acc {
		acc[i] = intOp(op, acc[i], p[i])
	}
}

// foldFloats computes in float64 and rounds to T, as combine does; t names
// the reduction's type in the error of an operator that does not apply.
func foldFloats[T float32 | float64](op Op, acc, p []T, t reflect.Type) error {
	switch op {
	case Add, Sub:
		for i := range acc {
			acc[i] = T(float64(acc[i]) + float64(p[i]))
		}
	case Mul:
		for i := range acc {
			acc[i] = T(float64(acc[i]) * float64(p[i]))
		}
	case Min:
		for i := range acc {
			acc[i] = T(math.Min(float64(acc[i]), float64(p[i])))
		}
	case Max:
		for i := range acc {
			acc[i] = T(math.Max(float64(acc[i]), float64(p[i])))
		}
	default:
		return fmt.Errorf("operator %v does not apply to %s", op, t)
	}
	return nil
}
