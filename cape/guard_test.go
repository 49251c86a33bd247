package cape

import (
	"sync"
	"testing"
)

// TestGuardOtherGoroutine: a guarded call that ends while a region begun
// after it runs leaves that region part-way only where the region is its
// own goroutine's (with GoroutineRegions); without the option, any.
func TestGuardOtherGoroutine(t *testing.T) {
	for _, c := range []struct {
		goRegions, sameGoroutine, abandoned bool
	}{
		{true, false, false},
		{true, true, true},
		{false, false, true},
	} {
		n := &node{goRegions: c.goRegions}
		var g Guard
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { // the goroutine running the guarded call
			defer wg.Done()
			g = Guard{n: n}
			if c.goRegions {
				g.gid = goroutineID()
			}
		}()
		wg.Wait()
		r := &Region{n: n}
		if c.goRegions && c.sameGoroutine {
			r.gid = g.gid
		} else if c.goRegions {
			r.gid = goroutineID() // this test's goroutine, as main's
		}
		n.cur = r
		g.Leave()
		if got := n.abandoned != nil; got != c.abandoned {
			t.Errorf("%+v: abandoned %v", c, got)
		}
	}
	if a, b := goroutineID(), goroutineID(); a == 0 || a != b {
		t.Errorf("goroutineID: %d then %d", a, b)
	}
}

// BenchmarkGoroutineID measures what a guard and a region pay for their
// goroutine's number in a program that starts goroutines.
func BenchmarkGoroutineID(b *testing.B) {
	for b.Loop() {
		if goroutineID() == 0 {
			b.Fatal("no goroutine number")
		}
	}
}
