package monitor

import (
	"testing"
	"time"
)

// A measurement preempted for a millisecond does not move the median.
func TestWindowMedian(t *testing.T) {
	var w window
	if got := w.median(); got != 0 {
		t.Fatalf("empty window: median %v, want 0", got)
	}
	for _, v := range []float64{300, 310, 290, 1e6, 305} {
		w.add(v)
	}
	if got := w.median(); got != 305 {
		t.Errorf("median %v, want 305", got)
	}
	for range 20 {
		w.add(7)
	}
	if got := w.median(); got != 7 {
		t.Errorf("after the window turned over: median %v, want 7", got)
	}
}

func costsWith(fault, copyNS, cmpNS, wp float64, written, between int) *regionCosts {
	c := &regionCosts{written: written, between: between, regions: 1, wfKnown: true}
	c.fault.add(fault)
	c.copyNS.add(copyNS)
	c.cmpNS.add(cmpNS)
	c.wpNS.add(wp)
	return c
}

// The choice follows the costs, not a fraction of dirty pages: the same
// regions are tracked by faults where a fault is cheap and compared where
// it is dear.
func TestChooseByCost(t *testing.T) {
	const e = 4096
	for _, tc := range []struct {
		name             string
		fault            float64
		written, between int
		cur, want        regionKind
	}{
		{"quarter written, cheap faults", 800, 1022, 0, kindFaults, kindFaults},
		{"quarter written, dear faults", 25000, 1022, 0, kindFaults, kindPlain},
		{"stencil with injection, dear faults", 25000, 1022, 1022, kindFaults, kindPlain},
		{"all written, cheap faults", 800, e, 0, kindFaults, kindPlain}, // protecting costs more than copying
		{"one page, dear faults", 25000, 1, 0, kindPlain, kindPlain},    // needs a sample first
	} {
		c := costsWith(tc.fault, 300, 150, 400, tc.written, tc.between)
		c.writtenFaults = tc.written
		if tc.cur == kindPlain {
			c.writtenFaults = e // as last tracked
		}
		if got := c.choose(tc.cur, e); got != tc.want {
			t.Errorf("%s: chose %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A kind less than 20 % cheaper than the current one is not worth a switch.
func TestChooseHysteresis(t *testing.T) {
	const e = 1000
	// faults: (1000+500+0)×100 = 150 000; plain: (500+500)×1000 = 1e6.
	c := costsWith(1000, 500, 500, 0, 100, 0)
	c.writtenFaults = 100
	if got := c.choose(kindFaults, e); got != kindFaults {
		t.Fatalf("chose %v, want faults", got)
	}
	// faults now 1500×600 = 900 000: plain is 10 % dearer, compare
	// ((500)×1000 + 500×600 = 800 000) 11 % cheaper: stay.
	c.written = 600
	if got := c.choose(kindFaults, e); got != kindFaults {
		t.Errorf("chose %v at an 11 %% gain, want faults", got)
	}
	c.written = 900 // faults 1 350 000, compare 950 000: 30 % cheaper
	if got := c.choose(kindFaults, e); got != kindCompare {
		t.Errorf("chose %v at a 30 %% gain, want compare", got)
	}
}

// Frozen costs ignore measurements; short ones are ignored anyway.
func TestObserve(t *testing.T) {
	var c regionCosts
	c.observeCopy(time.Millisecond, minTimedPages-1)
	if c.copyNS.n != 0 {
		t.Errorf("a copy of %d pages was recorded", minTimedPages-1)
	}
	c.observeCopy(time.Millisecond, 1000)
	if got := c.copyNS.median(); got != 1000 {
		t.Errorf("copy of 1000 pages in 1 ms: %v ns a page, want 1000", got)
	}
	c.frozen = true
	c.observeCopy(time.Second, 1000)
	c.observeFault(time.Second)
	if c.copyNS.n != 1 || c.fault.n != 0 {
		t.Errorf("frozen costs recorded measurements")
	}
}

// The first region, of which nothing is known, is tracked by faults where a
// fault costs little against copying and comparing a page, else plain.
func TestChooseFirst(t *testing.T) {
	for _, tc := range []struct {
		fault float64
		want  regionKind
	}{{800, kindFaults}, {25000, kindPlain}} {
		c := &regionCosts{}
		if got := c.choose(kindFaults, 4096); got != kindFaults {
			t.Errorf("no fault probed yet: chose %v, want faults", got)
		}
		c.fault.add(tc.fault)
		c.copyNS.add(300)
		c.cmpNS.add(150)
		if got := c.choose(kindFaults, 4096); got != tc.want {
			t.Errorf("fault %v ns: chose %v, want %v", tc.fault, got, tc.want)
		}
	}
}

// A region over an extent whose copy and comparison cost less than the
// calls of an armed region is plain, whatever a fault costs, even before
// a fault was probed; a larger extent is chosen by the estimates, in
// which the calls count.
func TestChoosePlainOnly(t *testing.T) {
	c := &regionCosts{}
	if c.plainOnly(1) {
		t.Errorf("plainOnly with no call timed")
	}
	c.callNS.add(30000) // a paravirtualized guest's ioctl
	c.copyNS.add(100)
	c.cmpNS.add(100)
	for _, cur := range []regionKind{kindFaults, kindCompare, kindPlain} {
		if got := c.choose(cur, 8); got != kindPlain {
			t.Errorf("8 pages after %v, nothing measured: chose %v, want plain", cur, got)
		}
	}
	if c.plainOnly(400) {
		t.Errorf("400 pages at 200 ns are not cheaper than two calls of 30 µs")
	}
	// Cheap faults, one page written, 400 pages: faults, unless the calls
	// cost more than copying and comparing the extent.
	d := costsWith(800, 100, 100, 400, 1, 0)
	d.writtenFaults = 1
	if got := d.choose(kindFaults, 400); got != kindFaults {
		t.Errorf("400 pages, no call cost: chose %v, want faults", got)
	}
	d.callNS.add(60000)
	if got := d.choose(kindFaults, 400); got != kindPlain {
		t.Errorf("400 pages, 60 µs calls: chose %v, want plain", got)
	}
}

// A snapshot region is chosen where copying and comparing the pages of
// its bounds costs less than what the kind it replaces would do, and never
// over snapMaxPages pages.
func TestSnapCheaper(t *testing.T) {
	// ns: fault 2000, copy 200, compare 200, protect 200, whole-extent
	// copy 200; a short call 2000, a walk 5 per page; 1 page written.
	costs := func(fault bool) *regionCosts {
		c := &regionCosts{written: 1}
		if fault {
			c.fault.add(2000)
		}
		for _, w := range []*window{&c.copyNS, &c.cmpNS, &c.wpNS, &c.bulkNS} {
			w.add(200)
		}
		c.callNS.add(2000)
		c.walkNS.add(5)
		return c
	}
	for _, tc := range []struct {
		name  string
		fault bool
		cur   regionKind
		bare  bool
		h, e  int
		clean bool
		want  bool
	}{
		{"bare, fewer pages", true, kindPlain, true, 1, 4, false, true},
		{"bare, every page", true, kindPlain, true, 4, 4, false, false},
		{"mixed, one page", true, kindPlain, false, 1, 512, true, true},
		// 32 pages: 12.8 µs against 6.4 + 4 + 1.28 (walk) clean, 6.4 more unclean.
		{"mixed, 32 pages, clean", true, kindPlain, false, 32, 256, true, false},
		{"mixed, 32 pages, unclean", true, kindPlain, false, 32, 256, false, true},
		{"over snapMaxPages", true, kindPlain, false, snapMaxPages + 1, 1 << 20, false, false},
		{"faults, one page", true, kindFaults, false, 1, 512, false, true},
		// 20 pages: 8 µs against 2.4 + 4 + 0.32 (walk), or + 20.5 over 4096 pages.
		{"faults, 20 pages, small extent", true, kindFaults, false, 20, 64, false, false},
		{"faults, 20 pages, large extent", true, kindFaults, false, 20, 4096, false, true},
		{"faults, no fault figure", false, kindFaults, false, 1, 512, false, false},
		{"compare, one page", true, kindCompare, false, 1, 16, false, true},
	} {
		c := costs(tc.fault)
		if got := c.snapCheaper(tc.cur, tc.bare, tc.h, tc.e, tc.clean); got != tc.want {
			t.Errorf("%s: snapCheaper = %v, want %v", tc.name, got, tc.want)
		}
	}
}
