package values

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// Named types reduce like their underlying types.
type (
	celsius float64
	small   int8
	flag    bool
)

var allOps = []Op{Add, Mul, Sub, And, Or, Xor, LAnd, LOr, Min, Max}

// identityCase is op's expected identity for one type, or the error
// Identity must return.
type identityCase[T Reducible] struct {
	op   Op
	want T
	err  string
}

func checkIdentities[T Reducible](t *testing.T, cases []identityCase[T]) {
	t.Helper()
	seen := map[Op]bool{}
	for _, c := range cases {
		seen[c.op] = true
		got, err := Identity[T](c.op)
		switch {
		case c.err != "":
			if err == nil || err.Error() != c.err {
				t.Errorf("Identity[%T](%v) = %v, %v; want error %q", got, c.op, got, err, c.err)
			}
		case err != nil:
			t.Errorf("Identity[%T](%v): %v", got, c.op, err)
		case !sameBits(got, c.want):
			t.Errorf("Identity[%T](%v) = %v, want %v", got, c.op, got, c.want)
		}
	}
	for _, op := range allOps {
		if !seen[op] {
			t.Errorf("%T: no identity case for %v", *new(T), op)
		}
	}
}

// sameBits compares two values exactly: -0 differs from +0, and any NaN
// equals any NaN (their payloads depend on the machine).
func sameBits[T Reducible](a, b T) bool {
	if a != a && b != b {
		return true
	}
	return string(rawBytes(&a)) == string(rawBytes(&b))
}

func signedIdentities[T ~int | ~int8 | ~int16 | ~int32 | ~int64](maxV, minV T) []identityCase[T] {
	return []identityCase[T]{
		{op: Add, want: 0}, {op: Sub, want: 0}, {op: Or, want: 0}, {op: Xor, want: 0}, {op: LOr, want: 0},
		{op: Mul, want: 1}, {op: LAnd, want: 1}, {op: And, want: -1},
		{op: Min, want: maxV}, {op: Max, want: minV},
		{op: Op(99), want: 0}, // an unknown operator leaves an integer at 0 (as before)
	}
}

func unsignedIdentities[T ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr](maxV T) []identityCase[T] {
	return []identityCase[T]{
		{op: Add, want: 0}, {op: Sub, want: 0}, {op: Or, want: 0}, {op: Xor, want: 0}, {op: LOr, want: 0},
		{op: Max, want: 0}, {op: Mul, want: 1}, {op: LAnd, want: 1},
		{op: And, want: maxV}, {op: Min, want: maxV},
	}
}

func floatIdentities[T ~float32 | ~float64](name string) []identityCase[T] {
	negZero := T(math.Copysign(0, -1)) // x + -0 is x for every x, -0 included
	cases := []identityCase[T]{
		{op: Add, want: negZero}, {op: Sub, want: negZero}, {op: Mul, want: 1},
		{op: Min, want: T(math.Inf(1))}, {op: Max, want: T(math.Inf(-1))},
	}
	for _, op := range []Op{And, Or, Xor, LAnd, LOr} {
		cases = append(cases, identityCase[T]{op: op, err: "operator " + op.String() + " does not apply to " + name})
	}
	return cases
}

func complexIdentities[T ~complex64 | ~complex128](name string) []identityCase[T] {
	negZero := math.Copysign(0, -1)
	cases := []identityCase[T]{{op: Add, want: T(complex(negZero, negZero))}, {op: Sub, want: T(complex(negZero, negZero))}, {op: Mul, want: 1}}
	for _, op := range []Op{And, Or, Xor, LAnd, LOr, Min, Max} {
		cases = append(cases, identityCase[T]{op: op, err: "operator " + op.String() + " does not apply to " + name})
	}
	return cases
}

func TestIdentity(t *testing.T) {
	t.Run("complex64", func(t *testing.T) { checkIdentities(t, complexIdentities[complex64]("complex64")) })
	t.Run("complex128", func(t *testing.T) { checkIdentities(t, complexIdentities[complex128]("complex128")) })
	t.Run("int", func(t *testing.T) { checkIdentities(t, signedIdentities[int](math.MaxInt, math.MinInt)) })
	t.Run("int8", func(t *testing.T) { checkIdentities(t, signedIdentities[int8](math.MaxInt8, math.MinInt8)) })
	t.Run("int16", func(t *testing.T) { checkIdentities(t, signedIdentities[int16](math.MaxInt16, math.MinInt16)) })
	t.Run("int32", func(t *testing.T) { checkIdentities(t, signedIdentities[int32](math.MaxInt32, math.MinInt32)) })
	t.Run("int64", func(t *testing.T) { checkIdentities(t, signedIdentities[int64](math.MaxInt64, math.MinInt64)) })
	t.Run("small", func(t *testing.T) { checkIdentities(t, signedIdentities[small](math.MaxInt8, math.MinInt8)) })
	t.Run("uint", func(t *testing.T) { checkIdentities(t, unsignedIdentities[uint](math.MaxUint)) })
	t.Run("uint8", func(t *testing.T) { checkIdentities(t, unsignedIdentities[uint8](math.MaxUint8)) })
	t.Run("uint16", func(t *testing.T) { checkIdentities(t, unsignedIdentities[uint16](math.MaxUint16)) })
	t.Run("uint32", func(t *testing.T) { checkIdentities(t, unsignedIdentities[uint32](math.MaxUint32)) })
	t.Run("uint64", func(t *testing.T) { checkIdentities(t, unsignedIdentities[uint64](math.MaxUint64)) })
	t.Run("uintptr", func(t *testing.T) { checkIdentities(t, unsignedIdentities[uintptr](^uintptr(0))) })
	t.Run("float32", func(t *testing.T) { checkIdentities(t, floatIdentities[float32]("float32")) })
	t.Run("float64", func(t *testing.T) { checkIdentities(t, floatIdentities[float64]("float64")) })
	t.Run("celsius", func(t *testing.T) { checkIdentities(t, floatIdentities[celsius]("values.celsius")) })
	t.Run("bool", func(t *testing.T) {
		checkIdentities(t, []identityCase[bool]{
			{op: LAnd, want: true}, {op: And, want: true}, {op: Mul, want: true}, {op: Min, want: true},
			{op: LOr, want: false}, {op: Or, want: false}, {op: Xor, want: false},
			{op: Add, want: false}, {op: Sub, want: false}, {op: Max, want: false},
			{op: Op(99), err: "operator Op(99) does not apply to bool"},
		})
	})
	t.Run("flag", func(t *testing.T) {
		checkIdentities(t, []identityCase[flag]{
			{op: LAnd, want: true}, {op: And, want: true}, {op: Mul, want: true}, {op: Min, want: true},
			{op: LOr, want: false}, {op: Or, want: false}, {op: Xor, want: false},
			{op: Add, want: false}, {op: Sub, want: false}, {op: Max, want: false},
		})
	})
}

// TestIdentityIsNeutral checks, for every operator and type it applies
// to, that combining the identity with x gives x, on both sides.
func TestIdentityIsNeutral(t *testing.T) {
	neutral(t, []int{0, 1, -1, 7, math.MaxInt, math.MinInt})
	neutral(t, []int8{0, 1, -1, 100, math.MaxInt8, math.MinInt8})
	neutral(t, []int16{0, 1, -1, math.MaxInt16, math.MinInt16})
	neutral(t, []int32{0, 1, -1, math.MaxInt32, math.MinInt32})
	neutral(t, []int64{0, 1, -1, math.MaxInt64, math.MinInt64})
	neutral(t, []small{0, 1, -1, math.MinInt8})
	neutral(t, []uint{0, 1, math.MaxUint})
	neutral(t, []uint8{0, 1, 200, math.MaxUint8})
	neutral(t, []uint16{0, 1, math.MaxUint16})
	neutral(t, []uint32{0, 1, math.MaxUint32})
	neutral(t, []uint64{0, 1, 1 << 63, math.MaxUint64})
	neutral(t, []uintptr{0, 1, ^uintptr(0)})
	neutral(t, []float32{0, 1, -2.5, float32(math.Inf(1)), math.MaxFloat32})
	neutral(t, []float64{0, 1, -2.5, math.Inf(-1), math.SmallestNonzeroFloat64})
	neutral(t, []celsius{0, 36.6})
	neutral(t, []bool{false, true})
	neutral(t, []flag{false, true})
}

func neutral[T Reducible](t *testing.T, xs []T) {
	t.Helper()
	for _, op := range allOps {
		id, err := Identity[T](op)
		if err != nil {
			continue
		}
		for _, x := range xs {
			want := truth(op, x)
			if got, err := fold(op, id, x); err != nil || !sameBits(got, want) {
				t.Errorf("%T: identity %v %v %v = %v, %v; want %v", x, id, op, x, got, err, want)
			}
			if got, err := fold(op, x, id); err != nil || !sameBits(got, want) {
				t.Errorf("%T: %v %v identity %v = %v, %v; want %v", x, x, op, id, got, err, want)
			}
		}
	}
}

// truth is x, or for && and || on an integer its truth as 0 or 1: what
// combining x with the operator's identity gives.
func truth[T Reducible](op Op, x T) T {
	v := reflect.ValueOf(&x).Elem()
	if op != LAnd && op != LOr || v.Kind() == reflect.Bool {
		return x
	}
	nonzero := !v.IsZero()
	v.SetZero()
	if nonzero && v.CanInt() {
		v.SetInt(1)
	} else if nonzero {
		v.SetUint(1)
	}
	return x
}

// fold is a op b through a Reducer whose value before the region is a and
// one node's partial is b: the path every reduction takes.
func fold[T Reducible](op Op, a, b T) (T, error) {
	x, err := NewReducer(op, a)
	if err != nil {
		return a, err
	}
	x.Partial(b)
	err = x.Combine([][]byte{x.PartialBytes()})
	return x.Result(), err
}

type combineCase[T Reducible] struct {
	op      Op
	a, b    T
	want    T
	wantErr string
}

// checkCombine checks every case through a Reducer (fold) and through an
// array reduction's elementwise loop (foldArray), which must agree with it.
func checkCombine[T Reducible](t *testing.T, cases []combineCase[T]) {
	t.Helper()
	for _, c := range cases {
		got, err := fold(c.op, c.a, c.b)
		checkCombined(t, "", c, got, err)
		acc := []T{c.a}
		err = foldArray(c.op, acc, []T{c.b})
		checkCombined(t, "array: ", c, acc[0], err)
	}
}

func checkCombined[T Reducible](t *testing.T, path string, c combineCase[T], got T, err error) {
	t.Helper()
	switch {
	case c.wantErr != "":
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("%s%T %v %v %v: err %v, want %q", path, c.a, c.a, c.op, c.b, err, c.wantErr)
		}
	case err != nil:
		t.Errorf("%s%T %v %v %v: %v", path, c.a, c.a, c.op, c.b, err)
	case !sameBits(got, c.want):
		t.Errorf("%s%T %v %v %v = %v, want %v", path, c.a, c.a, c.op, c.b, got, c.want)
	}
}

func TestCombineIntegers(t *testing.T) {
	checkCombine(t, []combineCase[int8]{
		{op: Add, a: 127, b: 1, want: -128}, // wraps
		{op: Sub, a: 3, b: 4, want: 7},      // partials of - are summed
		{op: Mul, a: 16, b: 16, want: 0},    // wraps
		{op: Mul, a: -3, b: 5, want: -15},
		{op: And, a: 0x5c, b: 0x0f, want: 0x0c},
		{op: Or, a: 0x50, b: 0x0f, want: 0x5f},
		{op: Xor, a: -1, b: 0x0f, want: -16},
		{op: LAnd, a: 5, b: -3, want: 1}, {op: LAnd, a: 5, b: 0, want: 0},
		{op: LOr, a: 0, b: 0, want: 0}, {op: LOr, a: 0, b: -7, want: 1},
		{op: Min, a: -128, b: 127, want: -128}, {op: Max, a: -128, b: 127, want: 127},
	})
	checkCombine(t, []combineCase[int64]{
		{op: Add, a: math.MaxInt64, b: 1, want: math.MinInt64},
		{op: Mul, a: 1 << 62, b: 4, want: 0},
		{op: Min, a: -5, b: 3, want: -5}, {op: Max, a: -5, b: -3, want: -3},
		{op: And, a: -1, b: 12345, want: 12345},
	})
	checkCombine(t, []combineCase[uint8]{
		{op: Add, a: 255, b: 1, want: 0},
		{op: Mul, a: 16, b: 17, want: 16},
		{op: Min, a: 200, b: 100, want: 100}, {op: Max, a: 200, b: 100, want: 200}, // unsigned order
		{op: LAnd, a: 2, b: 3, want: 1},
	})
	checkCombine(t, []combineCase[uint64]{
		{op: Min, a: 1 << 63, b: 1, want: 1}, {op: Max, a: 1 << 63, b: 1, want: 1 << 63},
		{op: Sub, a: 0, b: math.MaxUint64, want: math.MaxUint64},
		{op: Xor, a: 0xff00, b: 0x0ff0, want: 0xf0f0},
	})
	checkCombine(t, []combineCase[small]{{op: Add, a: 100, b: 100, want: -56}})
	checkCombine(t, []combineCase[uintptr]{{op: Add, a: ^uintptr(0), b: 2, want: 1}})
	checkCombine(t, []combineCase[int16]{{op: Max, a: -1, b: math.MinInt16, want: -1}})
	checkCombine(t, []combineCase[int32]{{op: Mul, a: 1 << 30, b: 2, want: math.MinInt32}})
	checkCombine(t, []combineCase[uint32]{{op: Or, a: 1, b: 1 << 31, want: 1<<31 | 1}})
	checkCombine(t, []combineCase[int]{{op: Min, a: math.MinInt, b: 0, want: math.MinInt}})
	checkCombine(t, []combineCase[uint16]{{op: And, a: 0xffff, b: 0x00f0, want: 0x00f0}})
	checkCombine(t, []combineCase[uint]{{op: LOr, a: 0, b: 9, want: 1}})
}

func TestCombineFloats(t *testing.T) {
	nan, negZero := math.NaN(), math.Copysign(0, -1)
	tenth, fifth := 0.1, 0.2
	checkCombine(t, []combineCase[float64]{
		{op: Add, a: tenth, b: fifth, want: tenth + fifth},
		{op: Sub, a: 1, b: 2, want: 3},
		{op: Mul, a: 1.5, b: -2, want: -3},
		{op: Add, a: math.Inf(1), b: math.Inf(-1), want: nan},
		{op: Min, a: negZero, b: 0, want: negZero}, {op: Min, a: 0, b: negZero, want: negZero},
		{op: Max, a: negZero, b: 0, want: 0}, {op: Max, a: 0, b: negZero, want: 0},
		{op: Min, a: nan, b: 1, want: nan}, {op: Min, a: 1, b: nan, want: nan},
		{op: Max, a: nan, b: 1, want: nan}, {op: Max, a: 1, b: nan, want: nan},
		{op: Add, a: negZero, b: negZero, want: negZero},
		{op: Add, a: negZero, b: 0, want: 0},
		{op: And, a: 1, b: 1, wantErr: "operator & does not apply to float64"},
		{op: LOr, a: 1, b: 1, wantErr: "operator || does not apply to float64"},
	})
	checkCombine(t, []combineCase[float32]{
		{op: Add, a: 16777216, b: 1, want: 16777216}, // rounded to float32 as a float32 sum is
		{op: Add, a: float32(tenth), b: float32(fifth), want: float32(tenth) + float32(fifth)},
		{op: Mul, a: math.MaxFloat32, b: 2, want: float32(math.Inf(1))},
		{op: Min, a: float32(negZero), b: 0, want: float32(negZero)},
		{op: Max, a: float32(nan), b: 1, want: float32(nan)},
		{op: Xor, a: 1, b: 1, wantErr: "operator ^ does not apply to float32"},
	})
	checkCombine(t, []combineCase[celsius]{{op: Max, a: -40, b: 36.6, want: 36.6}})
}

func TestCombineComplex(t *testing.T) {
	checkCombine(t, []combineCase[complex128]{
		{op: Add, a: 1 + 2i, b: 0.5 - 1i, want: 1.5 + 1i},
		{op: Sub, a: 1 + 2i, b: 3i, want: 1 + 5i},
		{op: Mul, a: 1 + 2i, b: 3 - 1i, want: 5 + 5i},
		{op: Min, a: 1, b: 2, wantErr: "operator min does not apply to complex128"},
		{op: Xor, a: 1, b: 2, wantErr: "operator ^ does not apply to complex128"},
	})
	checkCombine(t, []combineCase[complex64]{
		{op: Add, a: 16777216, b: 1, want: 16777216}, // rounded to complex64 as a complex64 sum is
		{op: Mul, a: 2i, b: 2i, want: -4},
		{op: Max, a: 1, b: 2, wantErr: "operator max does not apply to complex64"},
	})
}

func TestCombineBools(t *testing.T) {
	var cases []combineCase[bool]
	for _, a := range []bool{false, true} {
		for _, b := range []bool{false, true} {
			for _, op := range []Op{LAnd, And, Mul, Min} {
				cases = append(cases, combineCase[bool]{op: op, a: a, b: b, want: a && b})
			}
			for _, op := range []Op{LOr, Or, Add, Sub, Max} {
				cases = append(cases, combineCase[bool]{op: op, a: a, b: b, want: a || b})
			}
			cases = append(cases, combineCase[bool]{op: Xor, a: a, b: b, want: a != b})
		}
	}
	checkCombine(t, cases)
	checkCombine(t, []combineCase[flag]{{op: LAnd, a: true, b: false, want: false}, {op: Xor, a: true, b: true, want: false}})
}

func TestOpString(t *testing.T) {
	want := []string{"+", "*", "-", "&", "|", "^", "&&", "||", "min", "max"}
	for i, op := range allOps {
		if op.String() != want[i] {
			t.Errorf("Op(%d).String() = %q, want %q", int(op), op.String(), want[i])
		}
	}
	for _, op := range []Op{-1, 10} {
		if got, want := op.String(), "Op("; !strings.HasPrefix(got, want) {
			t.Errorf("Op(%d).String() = %q", int(op), got)
		}
	}
}

// TestSumKeepsZeroSign checks that a + reduction of floats split over
// nodes gives the zero go run's sequential sum gives, -0 or +0: each node's
// partial starts from the identity (-0), and the master folds the value
// before the region with the partials in rank order.
func TestSumKeepsZeroSign(t *testing.T) {
	neg := math.Copysign(0, -1)
	cases := []struct {
		name  string
		entry float64
		terms []float64
	}{
		{"every term -0", neg, []float64{neg, neg, neg, neg}},
		{"a +0 term", neg, []float64{neg, 0, neg, neg}},
		{"entry +0", 0, []float64{neg, neg}},
		{"cancelling terms", neg, []float64{1, neg, -1, neg}},
		{"no terms on a node", neg, []float64{neg}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := c.entry
			for _, x := range c.terms {
				want += x
			}
			for nodes := 1; nodes <= 3; nodes++ {
				x, err := NewReducer(Add, c.entry)
				if err != nil {
					t.Fatal(err)
				}
				parts := make([][]byte, nodes)
				for rank := range nodes {
					p := x.Identity()
					for i := rank; i < len(c.terms); i += nodes {
						p += c.terms[i]
					}
					parts[rank] = append([]byte(nil), rawBytes(&p)...)
				}
				if err := x.Combine(parts); err != nil {
					t.Fatal(err)
				}
				if got := x.Result(); !sameBits(got, want) {
					t.Errorf("%d nodes: %v (sign bit %v), want %v (sign bit %v)", nodes, got, math.Signbit(got), want, math.Signbit(want))
				}
			}
		})
	}
}
