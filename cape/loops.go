package cape

import (
	"fmt"
	"math"
)

// Integer are the types of a parallel loop's variable.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

// ForLoop names a three-clause parallel loop for LoopCount's errors: where it
// is (file:line:col), its variable, the variable's type and the condition
// as the source writes them, and the comparison with the variable on the
// left, "<", "<=" (counting up), ">" or ">=" (counting down).
type ForLoop struct {
	At, Var, Type, Cond, Op string
}

// LoopCount sets *count to the number of iterations of the loop
// for v := first; v Op last; v += step (v -= step counting down), as go run
// runs it, and returns nil; or it returns an error naming the loop when go
// run would not end it as a loop that stops at its bound: the condition
// holds for first, and the step is not positive (a zero step never moves
// v; a negative one moves it away from the bound), or the value after the
// last iteration that stays on the bound's side, computed in v's own type
// as Go computes it, wraps around past the type's range to a value for
// which the condition still holds (go run goes on with the wrapped values:
// it panics, never ends, or runs other iterations), or the loop runs more
// iterations than an int counts. Generated code calls it before a parallel
// loop whose end the translator cannot prove, and hands its error to Must.
func LoopCount[T Integer](count *int, l ForLoop, first, last, step T) error {
	*count = 0
	up := l.Op == "<" || l.Op == "<="
	if !up && l.Op != ">" && l.Op != ">=" {
		return fmt.Errorf("the loop at %s: unknown comparison %q", l.At, l.Op)
	}
	if !loopHolds(l.Op, first, last) {
		return nil
	}
	if step <= 0 {
		return loopStepError(l, step)
	}
	bits, signed := intBits[T]()
	mask := uint64(math.MaxUint64) >> (64 - bits)
	dist := uint64(last-first) & mask // last-first or first-last, wrapping: the distance
	if !up {
		dist = uint64(first-last) & mask
	}
	s := uint64(step) & mask
	var q uint64 // the iterations past the first
	if l.Op == "<" || l.Op == ">" {
		q = (dist - 1) / s // dist >= 1: the condition holds for first
	} else {
		q = dist / s
	}
	// The value after the last iteration, wrapping as Go's v += step does
	// (q+1 may wrap too: the product is the same modulo the type's range).
	end := first + T(q+1)*step
	if !up {
		end = first - T(q+1)*step
	}
	if loopHolds(l.Op, end, last) {
		prev := end - step
		if !up {
			prev = end + step
		}
		return loopWrapError(l, up, signed, bits, prev, end)
	}
	if q >= math.MaxInt {
		return fmt.Errorf("the loop at %s runs more iterations than an int counts (%d): CAPE cannot split it", l.At, uint64(math.MaxInt))
	}
	*count = int(q) + 1
	return nil
}

// loopHolds reports whether v op last holds.
func loopHolds[T Integer](op string, v, last T) bool {
	switch op {
	case "<":
		return v < last
	case "<=":
		return v <= last
	case ">":
		return v > last
	}
	return v >= last
}

// intBits returns the width of T in bits and whether it is signed.
func intBits[T Integer]() (bits uint, signed bool) {
	for x := T(1); x != 0; x <<= 1 {
		bits++
	}
	var zero T
	return bits, ^zero < 0
}

// loopStepError is LoopCount's error for a step that is not positive.
func loopStepError[T Integer](l ForLoop, step T) error {
	what := fmt.Sprintf("its step is %d, so %s moves away from the bound and %s stays true until %s wraps around: go run panics or never ends", step, l.Var, l.Cond, l.Var)
	if step == 0 {
		what = fmt.Sprintf("its step is 0, so %s never changes and %s stays true: go run never ends (or panics)", l.Var, l.Cond)
	}
	return fmt.Errorf("the loop at %s does not end as go run runs it: %s; the step must be positive (count down with -= or --)", l.At, what)
}

// loopWrapError is LoopCount's error for a loop whose variable wraps
// around (from prev, the last iteration's value, to end) before its
// condition is false.
func loopWrapError[T Integer](l ForLoop, up, signed bool, bits uint, prev, end T) error {
	maxSigned := int64(uint64(math.MaxUint64) >> (65 - bits))
	past := "below 0"
	switch {
	case up && signed:
		past = fmt.Sprintf("above %d", maxSigned)
	case up:
		past = fmt.Sprintf("above %d", uint64(math.MaxUint64)>>(64-bits))
	case signed:
		past = fmt.Sprintf("below %d", -maxSigned-1)
	}
	return fmt.Errorf("the loop at %s does not end as go run runs it: %s (%s) wraps around %s before %s is false (after %s = %d comes %d), so go run goes on with wrapped values: it panics, never ends, or runs other iterations; write a loop whose variable stays in the range of %s",
		l.At, l.Var, l.Type, past, l.Cond, l.Var, prev, end, l.Type)
}
