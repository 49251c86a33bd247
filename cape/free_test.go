package cape

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestFreeReusesAndRefuses frees arena memory: the next allocation of the
// same size gets the same address, zeroed; freeing twice, a sub-slice, Go
// heap memory or inside a region is refused with an error saying which.
func TestFreeReusesAndRefuses(t *testing.T) {
	const n = 3000 // 24 000 bytes: whole pages
	u := Make[float64](n)
	for i := range u {
		u[i] = float64(i) + 1
	}
	p := reflect.ValueOf(u).Pointer()
	if err := Free(u); err != nil {
		t.Fatal(err)
	}
	v := Make[float64](n)
	if q := reflect.ValueOf(v).Pointer(); q != p {
		t.Fatalf("after Free, Make of the same size at %#x, want the freed %#x", q, p)
	}
	for i, x := range v {
		if x != 0 {
			t.Fatalf("reused memory not zeroed: v[%d] = %v", i, x)
		}
	}
	small := New[[3]int32]()
	small[1] = 7
	if err := Free(small); err != nil {
		t.Fatal(err)
	}
	if again := New[[3]int32](); again != small || again[1] != 0 {
		t.Fatalf("New after Free: %p holding %v, want %p zeroed", again, *again, small)
	}

	check := func(name string, err error, want ...string) {
		t.Helper()
		if !errors.Is(err, ErrFree) {
			t.Fatalf("%s: %v, want an error wrapping ErrFree", name, err)
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", name, err, w)
			}
		}
	}
	w := Make[int64](10)
	if err := Free(w); err != nil {
		t.Fatal(err)
	}
	check("double free", Free(w), "the []int64 at arena offset", "freed already")
	x := Make[int64](10)
	check("sub-slice", Free(x[1:]), "does not start its allocation", "element [1] of the []int64 allocated at", "free_test.go")
	check("Go heap", Free(make([]float64, 4)), "not in the CAPE arena", "Go heap")
	check("not a slice", Free(3), "int")
	if err := Free([]float64(nil)); err != nil {
		t.Errorf("Free(nil slice) = %v", err)
	}
	if err := Free(Make[int32](0)); err != nil {
		t.Errorf("Free of an empty Make = %v", err)
	}

	r := Begin("free.go:1:1")
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	check("in a region", Free(x), "inside region free.go:1:1", "the []int64 allocated at", "after the region")
	finishRegion(t, r)
	if err := Free(x); err != nil {
		t.Fatalf("Free after the region: %v", err)
	}
}

// TestFreeBoundsTimeSteppingExtent allocates a large slice per step and
// frees the one it replaces: the arena's extent (what monitors track and
// deltas may cover) stays put.
func TestFreeBoundsTimeSteppingExtent(t *testing.T) {
	u := Make[float64](1 << 16)
	extent := the().arena.Used()
	for step := range 50 {
		next := Make[float64](1 << 16)
		for i := range next {
			next[i] = u[i] + 1
		}
		if err := Free(u); err != nil {
			t.Fatal(err)
		}
		u = next
		if step > 0 && the().arena.Used() > extent+len(u)*8 {
			t.Fatalf("step %d: extent grew from %d to %d", step, extent, the().arena.Used())
		}
	}
	if u[12345] != 50 {
		t.Fatalf("u[12345] = %v, want 50", u[12345])
	}
	if err := Free(u); err != nil {
		t.Fatal(err)
	}
}

// TestArenaPointersChecked stores pointers in the arena: into the arena is
// fine; a Go heap pointer stored by sequential code is refused at the next
// Start, and one stored inside a region at its Exchange, naming the
// allocation, the element and the field.
func TestArenaPointersChecked(t *testing.T) {
	rows := Make[[]float64](4)
	for i := range rows {
		rows[i] = Make[float64](8)
	}
	type grid struct {
		N int
		V []float64
	}
	gs := Make[grid](3)
	gs[1].V = rows[1]
	one := New[grid]()
	one.V = rows[0][2:]
	run := func(body func()) (startErr, exchErr error) {
		r := Begin("ptr.go:1:1")
		if startErr = r.Start(); startErr != nil {
			the().cur = nil
			the().arena.Freeze(false)
			return startErr, nil
		}
		body()
		d, err := r.Create()
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Stop(); err != nil {
			t.Fatal(err)
		}
		return nil, r.Exchange(d)
	}
	if s, e := run(func() { rows[3] = rows[3][1:] }); s != nil || e != nil {
		t.Fatalf("arena pointers refused: %v, %v", s, e)
	}

	rows[2] = make([]float64, 8) // sequential code stores a Go heap slice
	s, _ := run(func() {})
	if s == nil || !strings.Contains(s.Error(), "element [2] of the [][]float64 allocated at") ||
		!strings.Contains(s.Error(), "free_test.go") || !strings.Contains(s.Error(), "outside the CAPE arena") {
		t.Fatalf("Start with a heap row: %v, want an error naming element [2] of the [][]float64", s)
	}
	rows[2] = Make[float64](8)

	_, e := run(func() { gs[2].V = make([]float64, 2) }) // the region stores one
	if e == nil || !strings.Contains(e.Error(), "element [2].V of the []cape.grid allocated at") {
		t.Fatalf("Exchange after a region stored a heap slice: %v, want element [2].V of the []cape.grid", e)
	}
	gs[2].V = nil
	one.V = []float64{1}
	s, _ = run(func() {})
	if s == nil || !strings.Contains(s.Error(), "field V of the cape.grid allocated at") {
		t.Fatalf("Start with a heap slice in a New'd struct: %v", s)
	}
	one.V = nil
	if s, e := run(func() {}); s != nil || e != nil {
		t.Fatalf("after clearing: %v, %v", s, e)
	}
}

// TestPointerCheckCost measures the check every region's Start makes, for
// a [][]float64 of 4096 rows (reported with -v).
func TestPointerCheckCost(t *testing.T) {
	rows := Make[[]float64](4096)
	for i := range rows {
		rows[i] = Make[float64](4)
	}
	mem := the().arena.Bytes()
	const reps = 200
	start := time.Now()
	for range reps {
		if err := allocTable.CheckPointers(mem); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("pointer check with %d live pointerful allocations (%d pointer words in the largest): %v per region",
		allocTable.Pointerful(), len(rows), time.Since(start)/reps)
	for _, r := range rows {
		if err := Free(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := Free(rows); err != nil {
		t.Fatal(err)
	}
}
