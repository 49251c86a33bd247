package values

import (
	"fmt"
	"math"
	"reflect"
)

// Op is a reduction operator. Its numbers are those of the runtime's
// public operators (cape.OpAdd ...), in OpenMP's spelling order.
type Op int

// Reduction operators: + * - & | ^ && || min max.
const (
	Add Op = iota
	Mul
	Sub
	And
	Or
	Xor
	LAnd
	LOr
	Min
	Max
)

// Reducible are the types a reduction may name.
type Reducible interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64 | ~complex64 | ~complex128 | ~bool
}

var opNames = [...]string{"+", "*", "-", "&", "|", "^", "&&", "||", "min", "max"}

// String is the operator's OpenMP spelling, or Op(n) for an unknown one.
func (op Op) String() string {
	if op >= 0 && int(op) < len(opNames) {
		return opNames[op]
	}
	return fmt.Sprintf("Op(%d)", int(op))
}

// Identity returns op's identity for T: the value a node's private copy
// starts from. An operator that does not apply to T (a bitwise one on a
// float) is an error.
func Identity[T Reducible](op Op) (T, error) {
	var id T
	err := identity(op, reflect.ValueOf(&id).Elem())
	return id, err
}

// negZero is -0.
var negZero = math.Copysign(0, -1)

// identity sets v to op's identity for v's type.
func identity(op Op, v reflect.Value) error {
	k := v.Kind()
	switch {
	case k == reflect.Bool:
		switch op {
		case LAnd, And, Mul, Min:
			v.SetBool(true)
		case LOr, Or, Xor, Add, Sub, Max:
			v.SetBool(false)
		default:
			return fmt.Errorf("operator %v does not apply to bool", op)
		}
	case k >= reflect.Int && k <= reflect.Int64:
		switch op {
		case Add, Sub, Or, Xor, LOr:
			v.SetInt(0)
		case Mul, LAnd:
			v.SetInt(1)
		case And:
			v.SetInt(-1)
		case Min:
			v.SetInt(math.MaxInt64 >> (64 - 8*v.Type().Size()))
		case Max:
			v.SetInt(math.MinInt64 >> (64 - 8*v.Type().Size()))
		}
	case k >= reflect.Uint && k <= reflect.Uintptr:
		switch op {
		case Add, Sub, Or, Xor, LOr, Max:
			v.SetUint(0)
		case Mul, LAnd:
			v.SetUint(1)
		case And, Min:
			v.SetUint(math.MaxUint64 >> (64 - 8*v.Type().Size()))
		}
	case k == reflect.Float32 || k == reflect.Float64:
		switch op {
		case Add, Sub:
			// -0, not +0: x + -0 is x for every x, -0 included, so the
			// sum keeps the sign of a zero as go run's does (a sum is -0
			// only where every term is, whatever their order).
			v.SetFloat(negZero)
		case Mul:
			v.SetFloat(1)
		case Min:
			v.SetFloat(math.Inf(1))
		case Max:
			v.SetFloat(math.Inf(-1))
		default:
			return fmt.Errorf("operator %v does not apply to %s", op, v.Type())
		}
	case k == reflect.Complex64 || k == reflect.Complex128:
		switch op {
		case Add, Sub:
			v.SetComplex(complex(negZero, negZero)) // as for floats, part by part
		case Mul:
			v.SetComplex(1)
		default:
			return fmt.Errorf("operator %v does not apply to %s", op, v.Type())
		}
	default:
		return fmt.Errorf("cannot reduce a %s", v.Type())
	}
	return nil
}

// combine sets acc = acc op b. Integers wrap as in Go; floats are computed
// in float64 and rounded to acc's type (exact for + - *), complex numbers
// in complex128 (+ - * only), min and max
// follow math.Min and math.Max (NaN wins, -0 is below +0); on bools the
// arithmetic operators act as the logical ones (* as &&, + - as ||).
func combine(op Op, acc, b reflect.Value) error {
	k := acc.Kind()
	switch {
	case k == reflect.Bool:
		x, y := acc.Bool(), b.Bool()
		switch op {
		case LAnd, And, Mul, Min:
			acc.SetBool(x && y)
		case LOr, Or, Add, Sub, Max:
			acc.SetBool(x || y)
		case Xor:
			acc.SetBool(x != y)
		}
	case k >= reflect.Int && k <= reflect.Int64:
		acc.SetInt(intOp(op, acc.Int(), b.Int()))
	case k >= reflect.Uint && k <= reflect.Uintptr:
		acc.SetUint(intOp(op, acc.Uint(), b.Uint()))
	case k == reflect.Float32 || k == reflect.Float64:
		x, y := acc.Float(), b.Float()
		switch op {
		case Add, Sub:
			acc.SetFloat(x + y)
		case Mul:
			acc.SetFloat(x * y)
		case Min:
			acc.SetFloat(math.Min(x, y))
		case Max:
			acc.SetFloat(math.Max(x, y))
		default:
			return fmt.Errorf("operator %v does not apply to %s", op, acc.Type())
		}
	case k == reflect.Complex64 || k == reflect.Complex128:
		x, y := acc.Complex(), b.Complex()
		switch op {
		case Add, Sub:
			acc.SetComplex(x + y)
		case Mul:
			acc.SetComplex(x * y)
		default:
			return fmt.Errorf("operator %v does not apply to %s", op, acc.Type())
		}
	default:
		return fmt.Errorf("cannot reduce a %s", acc.Type())
	}
	return nil
}

// integer is the integer types a reduction may name.
type integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

func b2i[T integer](b bool) T {
	if b {
		return 1
	}
	return 0
}

// intOp is op on integers, signed or not (min and max compare in T). On a
// type narrower than 64 bits it gives the low bits of its result on the
// values widened to 64 bits: integers wrap as in Go.
func intOp[T integer](op Op, x, y T) T {
	switch op {
	case Add, Sub:
		return x + y
	case Mul:
		return x * y
	case And:
		return x & y
	case Or:
		return x | y
	case Xor:
		return x ^ y
	case LAnd:
		return b2i[T](x != 0 && y != 0)
	case LOr:
		return b2i[T](x != 0 || y != 0)
	case Min:
		return min(x, y)
	default:
		return max(x, y)
	}
}
