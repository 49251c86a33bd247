package cape

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"slices"
	"unsafe"
)

// value is a reduction or lastprivate variable registered with a region.
type value interface {
	// partial is this node's contribution.
	partial() []byte
	// combine computes the result from every node's contribution, in rank
	// order, and stores it in the variable (master, or a single node).
	combine(parts [][]byte) error
	// set stores the result computed by the master.
	set(result []byte) error
	// bytes is the variable's current value.
	bytes() []byte
}

func rawBytes[T any](v *T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(v)), unsafe.Sizeof(*v))
}

// reduction is a reduction through a pointer (Reduction): a Reducer whose
// partial is read from, and whose result is written to, the variable.
type reduction[T Reducible] struct {
	*Reducer[T]
	v *T
}

func (x reduction[T]) partial() []byte {
	x.Partial(*x.v)
	return x.Reducer.partial()
}

func (x reduction[T]) set(b []byte) error {
	if err := x.Reducer.set(b); err != nil {
		return err
	}
	*x.v = x.Result()
	return nil
}

func (x reduction[T]) combine(parts [][]byte) error {
	if err := x.Reducer.combine(parts); err != nil {
		return err
	}
	*x.v = x.Result()
	return nil
}

// Reduction registers *v as a reduction variable of r with operator op. Call
// it after Start and before the region's work: it records *v and sets it to
// op's identity; Exchange combines the recorded value with every node's
// partial result, in rank order, and stores the result in *v on every node.
// Taking the variable's address makes it live on the heap; generated code
// uses Reduce, which keeps the loop's accumulator in a register.
func Reduction[T Reducible](r *Region, op Op, v *T) {
	x := Reduce(r, op, *v)
	r.values[len(r.values)-1] = reduction[T]{x, v}
	*v = x.Identity()
}

var opNames = [...]string{"+", "*", "-", "&", "|", "^", "&&", "||", "min", "max"}

func (op Op) String() string {
	if int(op) < len(opNames) {
		return opNames[op]
	}
	return fmt.Sprintf("Op(%d)", int(op))
}

func identity(op Op, v reflect.Value) error {
	k := v.Kind()
	switch {
	case k == reflect.Bool:
		switch op {
		case OpLAnd, OpAnd, OpMul, OpMin:
			v.SetBool(true)
		case OpLOr, OpOr, OpXor, OpAdd, OpSub, OpMax:
			v.SetBool(false)
		default:
			return fmt.Errorf("operator %v does not apply to bool", op)
		}
	case k >= reflect.Int && k <= reflect.Int64:
		switch op {
		case OpAdd, OpSub, OpOr, OpXor, OpLOr:
			v.SetInt(0)
		case OpMul, OpLAnd:
			v.SetInt(1)
		case OpAnd:
			v.SetInt(-1)
		case OpMin:
			v.SetInt(math.MaxInt64 >> (64 - 8*v.Type().Size()))
		case OpMax:
			v.SetInt(math.MinInt64 >> (64 - 8*v.Type().Size()))
		}
	case k >= reflect.Uint && k <= reflect.Uintptr:
		switch op {
		case OpAdd, OpSub, OpOr, OpXor, OpLOr, OpMax:
			v.SetUint(0)
		case OpMul, OpLAnd:
			v.SetUint(1)
		case OpAnd, OpMin:
			v.SetUint(math.MaxUint64 >> (64 - 8*v.Type().Size()))
		}
	case k == reflect.Float32 || k == reflect.Float64:
		switch op {
		case OpAdd, OpSub:
			v.SetFloat(0)
		case OpMul:
			v.SetFloat(1)
		case OpMin:
			v.SetFloat(math.Inf(1))
		case OpMax:
			v.SetFloat(math.Inf(-1))
		default:
			return fmt.Errorf("operator %v does not apply to %s", op, v.Type())
		}
	default:
		return fmt.Errorf("cannot reduce a %s", v.Type())
	}
	return nil
}

// combine sets acc = acc op b.
func combine(op Op, acc, b reflect.Value) error {
	k := acc.Kind()
	switch {
	case k == reflect.Bool:
		x, y := acc.Bool(), b.Bool()
		switch op {
		case OpLAnd, OpAnd, OpMul, OpMin:
			acc.SetBool(x && y)
		case OpLOr, OpOr, OpAdd, OpSub, OpMax:
			acc.SetBool(x || y)
		case OpXor:
			acc.SetBool(x != y)
		}
	case k >= reflect.Int && k <= reflect.Int64:
		x, y := acc.Int(), b.Int()
		acc.SetInt(intOp(op, x, y))
	case k >= reflect.Uint && k <= reflect.Uintptr:
		x, y := acc.Uint(), b.Uint()
		acc.SetUint(intOp(op, x, y))
	case k == reflect.Float32 || k == reflect.Float64:
		x, y := acc.Float(), b.Float()
		switch op {
		case OpAdd, OpSub:
			acc.SetFloat(x + y)
		case OpMul:
			acc.SetFloat(x * y)
		case OpMin:
			acc.SetFloat(math.Min(x, y))
		case OpMax:
			acc.SetFloat(math.Max(x, y))
		default:
			return fmt.Errorf("operator %v does not apply to %s", op, acc.Type())
		}
	default:
		return fmt.Errorf("cannot reduce a %s", acc.Type())
	}
	return nil
}

func b2i[T int64 | uint64](b bool) T {
	if b {
		return 1
	}
	return 0
}

// intOp is op on integers, signed or not (min and max compare in T).
func intOp[T int64 | uint64](op Op, x, y T) T {
	switch op {
	case OpAdd, OpSub:
		return x + y
	case OpMul:
		return x * y
	case OpAnd:
		return x & y
	case OpOr:
		return x | y
	case OpXor:
		return x ^ y
	case OpLAnd:
		return b2i[T](x != 0 && y != 0)
	case OpLOr:
		return b2i[T](x != 0 || y != 0)
	case OpMin:
		return min(x, y)
	default:
		return max(x, y)
	}
}

type lastPrivate[T any] struct {
	v     *T
	owner bool
}

func (x *lastPrivate[T]) bytes() []byte { return rawBytes(x.v) }

func (x *lastPrivate[T]) partial() []byte {
	flag := byte(0)
	if x.owner {
		flag = 1
	}
	return append([]byte{flag}, rawBytes(x.v)...)
}

func (x *lastPrivate[T]) combine(parts [][]byte) error {
	for rank, p := range parts {
		if len(p) != 1+len(rawBytes(x.v)) {
			return fmt.Errorf("node %d sent a lastprivate value of %d bytes, want %d", rank, len(p), 1+len(rawBytes(x.v)))
		}
		if p[0] == 1 {
			copy(rawBytes(x.v), p[1:])
		}
	}
	return nil
}

func (x *lastPrivate[T]) set(b []byte) error {
	if len(b) != len(rawBytes(x.v)) {
		return fmt.Errorf("lastprivate value of %d bytes, want %d", len(b), len(rawBytes(x.v)))
	}
	copy(rawBytes(x.v), b)
	return nil
}

// LastPrivate registers *v as a lastprivate variable of r: at Exchange the
// value held by the node for which owner is true (the node that ran the
// sequentially last iteration or section) is stored in *v on every node. T
// must not contain pointers.
func LastPrivate[T any](r *Region, v *T, owner bool) {
	if err := pointerFree(reflect.TypeFor[T]()); err != nil {
		fail(r.wrap("lastprivate variable", err))
	}
	r.values = append(r.values, &lastPrivate[T]{v: v, owner: owner})
}

// partials is this node's contribution to the region's values: each
// value's partial and, when its units printed anything, their output
// (output.go) as one more piece.
func (r *Region) partials() []byte {
	p := pack(value.partial, r.values)
	if len(r.output) > 0 {
		p = binary.LittleEndian.AppendUint32(p, uint32(len(r.output)))
		p = append(p, r.output...)
	}
	return p
}

func (r *Region) results() []byte { return pack(value.bytes, r.values) }

// logged is what the durable log keeps of the region's values: their
// results and, when the region printed anything, its output in order.
func (r *Region) logged() []byte {
	p := r.results()
	if len(r.printed) > 0 {
		p = binary.LittleEndian.AppendUint32(p, uint32(len(r.printed)))
		p = append(p, r.printed...)
	}
	return p
}

// combineValues computes every registered value from all nodes' partials
// (nil on a single node: its own), and writes the output the nodes' units
// printed, in iteration order.
func (r *Region) combineValues(parts [][]byte) error {
	if parts == nil {
		if len(r.values) == 0 && len(r.output) == 0 {
			return nil
		}
		parts = [][]byte{r.partials()}
	}
	if len(r.values) == 0 && !slices.ContainsFunc(parts, func(p []byte) bool { return len(p) > 0 }) {
		return nil
	}
	per := make([][][]byte, len(parts))
	outs := make([][]byte, len(parts))
	for rank, p := range parts {
		vs, out, err := unpackValues(p, len(r.values))
		if err != nil {
			return r.wrap(fmt.Sprintf("values from node %d", rank), err)
		}
		per[rank], outs[rank] = vs, out
	}
	for i, v := range r.values {
		col := make([][]byte, len(parts))
		for rank := range parts {
			col[rank] = per[rank][i]
		}
		if err := v.combine(col); err != nil {
			return r.wrap("combine values", err)
		}
	}
	var err error
	if r.printed, err = orderOutput(outs); err != nil {
		return r.fail(err)
	}
	return nil
}

// setValues stores the values the master computed (a slave), or those
// logged (a replayed region), and writes a replayed region's logged output
// on the master.
func (r *Region) setValues(b []byte) error {
	vs, out, err := unpackValues(b, len(r.values))
	if err != nil {
		return r.wrap("values from the master", err)
	}
	for i, v := range r.values {
		if err := v.set(vs[i]); err != nil {
			return r.wrap("values from the master", err)
		}
	}
	if len(out) > 0 && r.n.rank == 0 {
		if err := printLogged(out); err != nil {
			return r.wrap("restart: logged output", err)
		}
		r.printed = out
	}
	return nil
}

// Reducer is a reduction variable of a region, passed by value so that the
// loop's accumulator stays a local the compiler can keep in a register (a
// variable whose address the runtime kept would live on the heap, and every
// iteration would load and store it). Generated code uses it as:
//
//	sumR := cape.Reduce(r, cape.OpAdd, sum) // after Start
//	{
//		sum := sumR.Identity()
//		for ... { sum += ... }
//		sumR.Partial(sum)
//	}
//	... Create, Stop, Exchange ...
//	sum = sumR.Result()
type Reducer[T Reducible] struct {
	op                 Op
	orig, part, result T
	id                 T
}

// Reduce registers a reduction of r with operator op whose value before the
// region is v. Call it after Start.
func Reduce[T Reducible](r *Region, op Op, v T) *Reducer[T] {
	x := &Reducer[T]{op: op, orig: v}
	if err := identity(op, reflect.ValueOf(&x.id).Elem()); err != nil {
		fail(r.wrap("reduction", err))
	}
	x.part, x.result = x.id, v
	r.values = append(r.values, x)
	return x
}

// Identity is the operator's identity: the initial value of this node's
// partial result.
func (x *Reducer[T]) Identity() T { return x.id }

// Partial records this node's partial result. Call it before Exchange.
func (x *Reducer[T]) Partial(v T) { x.part = v }

// Result is the reduction's value, the same on every node, once Exchange
// has returned.
func (x *Reducer[T]) Result() T { return x.result }

func (x *Reducer[T]) partial() []byte { return rawBytes(&x.part) }
func (x *Reducer[T]) bytes() []byte   { return rawBytes(&x.result) }

func (x *Reducer[T]) set(b []byte) error {
	if len(b) != len(rawBytes(&x.result)) {
		return fmt.Errorf("reduction result of %d bytes, want %d", len(b), len(rawBytes(&x.result)))
	}
	copy(rawBytes(&x.result), b)
	return nil
}

func (x *Reducer[T]) combine(parts [][]byte) error {
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
