package cape

import (
	"math"
	"strings"
	"testing"
)

// goLoop runs for v := first; v op last; v += step (v -= step counting
// down) as Go does, for at most limit iterations, and returns how many ran
// and whether the loop ended with its variable on the bound's side: never
// wrapping around, the step moving it towards the bound (a loop that runs
// with a step that is not positive does not, even where wrapping around
// ends it).
func goLoop[T Integer](op string, first, last, step T, limit int) (n int, ends bool) {
	up := op == "<" || op == "<="
	v := first
	if step <= 0 && loopHolds(op, v, last) {
		return 0, false
	}
	for ; n < limit && loopHolds(op, v, last); n++ {
		next := v + step
		if !up {
			next = v - step
		}
		if up && next < v || !up && next > v {
			return n, false // wrapped around
		}
		v = next
	}
	return n, n < limit
}

// checkLoops compares LoopCount with goLoop for every first and last of
// T (a type of 8 bits) and the given steps.
func checkLoops[T Integer](t *testing.T, steps []T) {
	t.Helper()
	for _, op := range []string{"<", "<=", ">", ">="} {
		for _, step := range steps {
			for f := range 256 {
				for l := range 256 {
					first, last := T(f), T(l)
					n, ends := goLoop(op, first, last, step, 300)
					var count int
					err := LoopCount(&count, ForLoop{At: "m.go:1:1", Var: "i", Type: "t", Cond: "c", Op: op}, first, last, step)
					switch {
					case ends && (err != nil || count != n):
						t.Fatalf("%v %s %v step %v: count %d, %v; go runs %d iterations", first, op, last, step, count, err, n)
					case !ends && err == nil:
						t.Fatalf("%v %s %v step %v: count %d; go does not end the loop at its bound", first, op, last, step, count)
					case !ends && count != 0:
						t.Fatalf("%v %s %v step %v: count %d with an error", first, op, last, step, count)
					}
				}
			}
		}
	}
}

// TestLoopCount checks LoopCount against Go's own loop on every first and
// last value of int8 and uint8, counting up and down, with steps that end,
// wrap around, do not move, or move away.
func TestLoopCount(t *testing.T) {
	checkLoops[int8](t, []int8{1, 3, 127, 0, -128})
	checkLoops[uint8](t, []uint8{1, 10, 255, 0})
}

// TestLoopCountErrors checks the errors' words: the loop, the variable,
// its type, what go run does.
func TestLoopCountErrors(t *testing.T) {
	var count int
	l := ForLoop{At: "main.go:9:2", Var: "i", Type: "uint32", Cond: "i >= 1", Op: ">="}
	err := LoopCount(&count, l, uint32(9), 1, 2)
	if err == nil || !strings.Contains(err.Error(), "the loop at main.go:9:2 does not end as go run runs it: i (uint32) wraps around below 0 before i >= 1 is false (after i = 1 comes 4294967295)") {
		t.Errorf("uint32 counting down past 0: %v", err)
	}
	l = ForLoop{At: "main.go:9:2", Var: "i", Type: "int8", Cond: "i < 127", Op: "<"}
	if err := LoopCount(&count, l, int8(100), 127, 10); err == nil || !strings.Contains(err.Error(), "wraps around above 127 before i < 127 is false (after i = 120 comes -126)") {
		t.Errorf("int8 counting up past 127: %v", err)
	}
	l = ForLoop{At: "main.go:9:2", Var: "i", Type: "int", Cond: "i < 10", Op: "<"}
	if err := LoopCount(&count, l, 5, 10, -1); err == nil || !strings.Contains(err.Error(), "its step is -1") {
		t.Errorf("negative step: %v", err)
	}
	if err := LoopCount(&count, l, 5, 10, 0); err == nil || !strings.Contains(err.Error(), "its step is 0, so i never changes") {
		t.Errorf("zero step: %v", err)
	}
	if err := LoopCount(&count, l, 10, 10, 0); err != nil || count != 0 {
		t.Errorf("a loop that does not run, with a zero step: %d, %v", count, err)
	}
	l = ForLoop{At: "main.go:9:2", Var: "i", Type: "uint64", Cond: "i <= hi", Op: "<="}
	if err := LoopCount(&count, l, 0, uint64(math.MaxUint64), 1); err == nil || !strings.Contains(err.Error(), "wraps around above 18446744073709551615") {
		t.Errorf("uint64 up to its maximum: %v", err)
	}
	if err := LoopCount(&count, l, 0, uint64(math.MaxInt)+5, 1); err == nil || !strings.Contains(err.Error(), "more iterations than an int counts") {
		t.Errorf("more iterations than an int: %d, %v", count, err)
	}
	if err := LoopCount(&count, l, 0, uint64(math.MaxInt)-1, 1); err != nil || count != math.MaxInt {
		t.Errorf("math.MaxInt iterations: %d, %v", count, err)
	}
	l = ForLoop{At: "main.go:9:2", Var: "i", Type: "int64", Cond: "i >= lo", Op: ">="}
	if err := LoopCount(&count, l, 7, int64(math.MinInt64), 3); err == nil || !strings.Contains(err.Error(), "wraps around below -9223372036854775808") {
		t.Errorf("int64 down to its minimum: %v", err)
	}
}
