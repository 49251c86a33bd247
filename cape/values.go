package cape

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"

	"github.com/cape-go/cape/cape/internal/allocs"
	"github.com/cape-go/cape/cape/internal/stdio"
	"github.com/cape-go/cape/cape/internal/values"
	"github.com/cape-go/cape/cape/internal/wire"
)

// The reductions' and lastprivates' logic is cape/internal/values's: this
// file registers them with a region (the API generated code calls) and
// moves their pieces through the region's values list.

// value is a reduction or lastprivate variable registered with a region.
type value = values.Value

// Reduction registers *v as a reduction variable of r with operator op. Call
// it after Start and before the region's work: it records *v and sets it to
// op's identity; Exchange combines the recorded value with every node's
// partial result, in rank order, and stores the result in *v on every node.
// Taking the variable's address makes it live on the heap; generated code
// uses Reduce, which keeps the loop's accumulator in a register.
func Reduction[T Reducible](r *Region, op Op, v *T) {
	x := newReducer(r, op, *v)
	r.values.Add(values.Through(x, v))
	*v = x.Identity()
}

func (op Op) String() string { return values.Op(op).String() }

// LastPrivate registers *v as a lastprivate variable of r: at Exchange the
// value held by the node for which owner is true (the node that ran the
// sequentially last iteration or section) is stored in *v on every node. T
// must not contain pointers, or be a string.
func LastPrivate[T any](r *Region, v *T, owner bool) {
	if err := lastPrivateType(reflect.TypeFor[T]()); err != nil {
		fail(r.wrap("lastprivate variable", err))
	}
	r.values.Add(values.NewLastPrivate(v, owner))
}

// LastAssigned registers *v as a lastprivate variable of r that not every
// iteration assigns: at Exchange the value of the node that assigned it in
// the sequentially latest iteration (at: this node's latest, -1 for none)
// is stored in *v on every node, which keeps its value if no node did. T
// must not contain pointers, or be a string.
func LastAssigned[T any](r *Region, v *T, at int) {
	if err := lastPrivateType(reflect.TypeFor[T]()); err != nil {
		fail(r.wrap("lastprivate variable", err))
	}
	r.values.Add(values.NewLastAssigned(v, at))
}

// lastPrivateType refuses a lastprivate variable's type t that holds
// pointers, but for a string, whose bytes travel.
func lastPrivateType(t reflect.Type) error {
	if t.Kind() == reflect.String {
		return nil
	}
	return allocs.PointerFree(t)
}

// partials is this node's contribution to the region's values: each
// value's partial and, when its units printed anything, their output
// (output.go) as one more piece.
func (r *Region) partials() []byte {
	return wire.PackValues(value.PartialBytes, r.values.All(), r.output)
}

func (r *Region) results() []byte { return wire.Pack(value.Bytes, r.values.All()) }

// logged is what the durable log keeps of the region's values: their
// results and, when the region printed anything, its output in order.
func (r *Region) logged() []byte {
	return wire.PackValues(value.Bytes, r.values.All(), r.printed)
}

// combineValues computes every registered value from all nodes' partials
// (nil on a single node: its own), and writes the output the nodes' units
// printed, in iteration order.
func (r *Region) combineValues(parts [][]byte) error {
	if parts == nil {
		if r.values.Len() == 0 && len(r.output) == 0 {
			return nil
		}
		parts = [][]byte{r.partials()}
	}
	if r.values.Len() == 0 && !slices.ContainsFunc(parts, func(p []byte) bool { return len(p) > 0 }) {
		return nil
	}
	per := make([][][]byte, len(parts))
	outs := make([][]byte, len(parts))
	for rank, p := range parts {
		vs, out, err := wire.UnpackValues(p, r.values.Len())
		if err != nil {
			return r.wrap(fmt.Sprintf("values from node %d", rank), err)
		}
		per[rank], outs[rank] = vs, out
	}
	if err := r.values.Combine(per); err != nil {
		var mc *markConflict
		if errors.As(err, &mc) {
			return r.markError(mc)
		}
		return r.wrap("combine values", err)
	}
	var err error
	// The nodes' pieces, by rank, in iteration order to standard output;
	// r.printed is them as one piece, for the log.
	if r.printed, err = stdio.WriteOrdered(os.Stdout, outs); err != nil {
		return r.fail(err)
	}
	return nil
}

// setValues stores the values the master computed (a slave), or those
// logged (a replayed region), and writes a replayed region's logged output
// on the master.
func (r *Region) setValues(b []byte) error {
	vs, out, err := wire.UnpackValues(b, r.values.Len())
	if err == nil {
		err = r.values.Set(vs)
	}
	if err != nil {
		return r.wrap("values from the master", err)
	}
	if len(out) > 0 && r.n.rank == 0 {
		if err := stdio.WriteLogged(os.Stdout, out); err != nil {
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
type Reducer[T Reducible] = values.Reducer[T]

// Reduce registers a reduction of r with operator op whose value before the
// region is v. Call it after Start.
func Reduce[T Reducible](r *Region, op Op, v T) *Reducer[T] {
	x := newReducer(r, op, v)
	r.values.Add(x)
	return x
}

// newReducer is a reduction of r with operator op from v, not registered;
// an operator that does not apply to T ends the program.
func newReducer[T Reducible](r *Region, op Op, v T) *Reducer[T] {
	x, err := values.NewReducer(values.Op(op), v)
	if err != nil {
		fail(r.wrap("reduction", err))
	}
	return x
}
