package cape

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cape-go/cape/cape/internal/roster"
)

// block is roster.Block, as the tests of this package name it.
func block(count, rank, size int) (lo, hi int) { return roster.Block(count, rank, size) }

func TestBlockPartitionCoversOnce(t *testing.T) {
	for _, count := range []int{0, 1, 2, 3, 7, 300, 1024, 1025} {
		for size := 1; size <= 9; size++ {
			next := 0
			for rank := range size {
				lo, hi := block(count, rank, size)
				if count > 0 && lo != next {
					t.Fatalf("count %d size %d rank %d: block starts at %d, want %d", count, size, rank, lo, next)
				}
				if hi-lo > count/size+1 || hi-lo < count/size {
					t.Fatalf("count %d size %d rank %d: block of %d iterations is unbalanced", count, size, rank, hi-lo)
				}
				next = hi
			}
			if count > 0 && next != count {
				t.Fatalf("count %d size %d: blocks end at %d", count, size, next)
			}
		}
	}
}

func TestAllocRefusesWhatTheArenaCannotHold(t *testing.T) {
	type inner struct {
		A int
		S string
	}
	type outer struct {
		X [2]inner
	}
	_, err := Alloc[outer](3)
	var ae *AllocError
	if !errors.As(err, &ae) || !errors.Is(err, ErrPointers) {
		t.Fatalf("Alloc of a type with a string: %v", err)
	}
	if !strings.Contains(err.Error(), "outer") || !strings.Contains(err.Error(), "S") {
		t.Errorf("error %q does not name the type and the field", err)
	}
	for _, f := range []func() error{
		func() error { _, err := Alloc[string](1); return err },
		func() error { _, err := Alloc[map[int]int](1); return err },
		func() error { _, err := Alloc[chan int](1); return err },
		func() error { _, err := Alloc[func()](1); return err },
		func() error { _, err := Alloc[any](1); return err },
	} {
		if err := f(); !errors.Is(err, ErrPointers) {
			t.Errorf("got %v, want ErrPointers", err)
		}
	}
	s := Make[struct{ A, B float64 }](10)
	s[9].B = 1
	if len(s) != 10 {
		t.Fatalf("len %d", len(s))
	}
	// Pointers and slices are allowed (checked at each region's Start).
	type node struct {
		V    []float64
		Next *int64
	}
	_ = Make[[]float64](3)
	_ = New[node]()
	_ = Make[[4]*int64](2)
}

func TestSingleNodeRegionReductions(t *testing.T) {
	x := Make[int64](100)
	sum, mx, prod := int64(5), math.Inf(-1), uint8(1)
	ok := true
	last := 0
	r := Begin("test")
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	Reduction(r, OpAdd, &sum)
	Reduction(r, OpMax, &mx)
	Reduction(r, OpMul, &prod)
	Reduction(r, OpLAnd, &ok)
	if sum != 0 || !math.IsInf(mx, -1) || prod != 1 || !ok {
		t.Fatalf("identities: sum %d max %v prod %d and %v", sum, mx, prod, ok)
	}
	if _, err := Alloc[int](1); err == nil {
		t.Error("allocation inside a region succeeded")
	}
	lo, hi := r.Static(len(x))
	for i := lo; i < hi; i++ {
		x[i] = int64(i)
		sum += int64(i)
		mx = max(mx, float64(i)/2)
		prod *= 2
		ok = ok && i < 99
		last = i
	}
	LastPrivate(r, &last, hi == len(x))
	finishRegion(t, r)
	if sum != 5+4950 || mx != 49.5 || prod != 0 || ok || last != 99 {
		t.Fatalf("after exchange: sum %d max %v prod %d and %v last %d", sum, mx, prod, ok, last)
	}
}

func TestVerifyReportsDifferenceAndRestores(t *testing.T) {
	n := the()
	n.plan.Verify = true
	defer func() { n.plan.Verify = false }()
	x := Make[int32](64)
	x[7] = 70
	for _, bad := range []bool{false, true} {
		r := Begin("verify")
		if err := r.Start(); err != nil {
			t.Fatal(err)
		}
		x[5] = 1 // the "parallel" run
		finishRegion(t, r)
		if !r.Verifying() {
			t.Fatal("Verifying() is false with verify on")
		}
		r.VerifyBegin()
		if x[5] != 0 || x[7] != 70 {
			t.Fatalf("VerifyBegin did not restore the entry state: x[5]=%d x[7]=%d", x[5], x[7])
		}
		x[5] = 1 // the sequential re-run
		if bad {
			x[5] = 2
		}
		err := r.VerifyEnd()
		if x[5] != 1 {
			t.Fatalf("VerifyEnd left x[5]=%d, want the merged result 1", x[5])
		}
		switch {
		case !bad && err != nil:
			t.Fatalf("matching re-run reported %v", err)
		case bad && (err == nil || !strings.Contains(err.Error(), "element [5] of the []int32") || !strings.Contains(err.Error(), "cape_test.go")):
			t.Fatalf("differing re-run reported %v, want element [5] of the []int32 allocated in cape_test.go", err)
		}
		x[5] = 0
	}
}

func TestReducerByValue(t *testing.T) {
	r := Begin("reducer")
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	sum, lo := int64(100), int64(7)
	sumR := Reduce(r, OpAdd, sum)
	minR := Reduce(r, OpMin, lo)
	{
		sum, lo := sumR.Identity(), minR.Identity()
		if sum != 0 || lo != math.MaxInt64 {
			t.Fatalf("identities %d %d", sum, lo)
		}
		for i := range int64(10) {
			sum += i
			lo = min(lo, i+3)
		}
		sumR.Partial(sum)
		minR.Partial(lo)
	}
	finishRegion(t, r)
	if sum, lo = sumR.Result(), minR.Result(); sum != 145 || lo != 3 {
		t.Fatalf("results %d %d, want 145 3", sum, lo)
	}
}

func TestArrayReducer(t *testing.T) {
	r := Begin("array reducer")
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	hist := [4]int64{100, 0, 0, 1}
	hi := []float64{-1, 5}
	histR := ReduceArray(r, OpAdd, hist[:])
	hiR := ReduceArray(r, OpMax, hi)
	{
		var hist [4]int64
		histR.Init(hist[:])
		hi := make([]float64, len(hi))
		hiR.Init(hi)
		if hist != [4]int64{} || hi[0] != math.Inf(-1) || hi[1] != math.Inf(-1) {
			t.Fatalf("identities %v %v", hist, hi)
		}
		for i := range 10 {
			hist[i%4]++
			hi[i%2] = max(hi[i%2], float64(i))
		}
		histR.Partial(hist[:])
		hiR.Partial(hi)
	}
	finishRegion(t, r)
	histR.Result(hist[:])
	hiR.Result(hi)
	if hist != [4]int64{103, 3, 2, 3} || hi[0] != 8 || hi[1] != 9 {
		t.Fatalf("results %v %v, want [103 3 2 3] [8 9]", hist, hi)
	}
}

// finishRegion ends the region r the way the template does: Create, Stop,
// Exchange, failing t on any error.
func finishRegion(t *testing.T, r *Region) {
	t.Helper()
	d, err := r.Create()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := r.Exchange(d); err != nil {
		t.Fatal(err)
	}
}
