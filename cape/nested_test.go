package cape

import (
	"slices"
	"strings"
	"testing"
)

// innerRegion is a function with its own region, as the translator emits
// it, called from inside another region's loop: it fills row i of x and
// returns the row's sum (a reduction) and the last column it wrote (a
// lastprivate), and records the sections it ran.
func innerRegion(t *testing.T, x []int64, i, cols int, sched Schedule) (sum int64, last int, secs []int) {
	t.Helper()
	r := Begin("inner.go:1:1")
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	sumR := Reduce(r, OpAdd, int64(1000))
	owner := false
	{
		sum := sumR.Identity()
		for lo, hi := range r.Chunks(cols, sched, 3) {
			for j := lo; j < hi; j++ {
				x[i*cols+j] = int64(i*100 + j)
				sum += int64(j)
				last = j
			}
			owner = hi == cols
		}
		sumR.Partial(sum)
	}
	LastPrivate(r, &last, owner)
	for s := range r.Sections(4, Dynamic) {
		secs = append(secs, s)
	}
	if lo, hi := r.Static(cols); lo != 0 || hi != cols {
		t.Errorf("nested Static(%d) = [%d, %d), want all of it", cols, lo, hi)
	}
	d, err := r.Create()
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 0 {
		t.Errorf("nested region's delta holds %d bytes, want none (the enclosing region records its writes)", d.Len())
	}
	if err := r.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := r.Exchange(d); err != nil {
		t.Fatal(err)
	}
	if r.Verifying() {
		t.Error("a nested region is re-run by itself under --verify")
	}
	r.EndLast() // must not end anything
	return sumR.Result(), last, secs
}

// TestNestedRegionRunsWholeOnTheNode starts a region from inside another
// region's loop: the inner one runs all its iterations and sections on this
// node, in order, with sequential reduction and lastprivate results, does
// not count in the job's region numbering, and leaves allocation refused
// until the outer region stops.
func TestNestedRegionRunsWholeOnTheNode(t *testing.T) {
	const rows, cols = 4, 10
	x := Make[int64](rows * cols)
	for _, sched := range []Schedule{Static, Dynamic, Guided} {
		n := the()
		seq := n.seq
		outer := Begin("outer.go:1:1")
		if err := outer.Start(); err != nil {
			t.Fatal(err)
		}
		lo, hi := outer.Static(rows)
		for i := lo; i < hi; i++ {
			sum, last, secs := innerRegion(t, x, i, cols, sched)
			if sum != 1000+45 || last != cols-1 || !slices.Equal(secs, []int{0, 1, 2, 3}) {
				t.Fatalf("schedule %v row %d: sum %d last %d sections %v, want 1045, %d, [0 1 2 3]", sched, i, sum, last, secs, cols-1)
			}
			if _, err := Alloc[int](1); err == nil {
				t.Fatal("allocation allowed inside the enclosing region after a nested region stopped")
			}
		}
		if n.seq != seq+1 {
			t.Errorf("the nested regions moved the region count from %d to %d, want %d", seq, n.seq, seq+1)
		}
		d, err := outer.Create()
		if err != nil {
			t.Fatal(err)
		}
		if err := outer.Stop(); err != nil {
			t.Fatal(err)
		}
		if err := outer.Exchange(d); err != nil {
			t.Fatal(err)
		}
		for i := range rows * cols {
			if x[i] != int64(i/cols*100+i%cols) {
				t.Fatalf("x[%d] = %d", i, x[i])
			}
		}
		clear(x)
	}
	// Outside any region, Begin makes an ordinary region again.
	r := Begin("after.go:1:1")
	if r.nested != nil || r.size != the().size {
		t.Fatal("a region begun after the enclosing one stopped is nested")
	}
}

// TestNestedRegionInVerifyRerun runs the enclosing region's --verify
// re-run: regions it begins are nested too (they must not talk to other
// nodes from the master alone).
func TestNestedRegionInVerifyRerun(t *testing.T) {
	n := the()
	n.plan.Verify = true
	defer func() { n.plan.Verify = false }()
	const cols = 6
	x := Make[int64](2 * cols)
	body := func() {
		for i := range 2 {
			innerRegion(t, x, i, cols, Static)
		}
	}
	outer := Begin("outer.go:2:1")
	if err := outer.Start(); err != nil {
		t.Fatal(err)
	}
	body()
	d, err := outer.Create()
	if err != nil {
		t.Fatal(err)
	}
	if err := outer.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := outer.Exchange(d); err != nil {
		t.Fatal(err)
	}
	if !outer.Verifying() {
		t.Fatal("not verifying")
	}
	seq := n.seq
	outer.VerifyBegin()
	body()
	if err := outer.VerifyEnd(); err != nil {
		t.Fatal(err)
	}
	if n.seq != seq {
		t.Errorf("the re-run's regions were numbered as the job's (count %d → %d)", seq, n.seq)
	}
	if r := Begin("x"); r.nested != nil {
		t.Error("regions after VerifyEnd are still nested")
	}
	if !strings.Contains(Begin("y").label(), "#") {
		t.Error("label of a top-level region does not carry its number")
	}
}
