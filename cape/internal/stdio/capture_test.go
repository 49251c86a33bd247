package stdio

import (
	"errors"
	"strings"
	"testing"
)

// fakeOut is an in-memory capture file: print appends to it while
// redirected; failing names the operation that fails.
type fakeOut struct {
	data       []byte
	redirected bool
	failing    string
	resets     int
}

func (f *fakeOut) fail(op string) error {
	if f.failing == op {
		return errors.New(op + " failed")
	}
	return nil
}

func (f *fakeOut) print(s string) {
	if f.redirected {
		f.data = append(f.data, s...)
	}
}

func (f *fakeOut) redirect() error {
	if err := f.fail("redirect"); err != nil {
		return err
	}
	f.redirected = true
	return nil
}

func (f *fakeOut) restore() error {
	f.redirected = false
	return f.fail("restore")
}

func (f *fakeOut) offset() (int64, error) { return int64(len(f.data)), f.fail("offset") }

func (f *fakeOut) readAll(dst []byte, n int64) ([]byte, error) {
	return append(dst[:0], f.data[:n]...), f.fail("readAll")
}

func (f *fakeOut) reset() error {
	f.data = f.data[:0]
	f.resets++
	return f.fail("reset")
}

// TestCaptureSegments runs regions on a fake capture file: each unit's
// output becomes a segment tagged with its first iteration, in the order
// run; units that print nothing have none; what precedes the first unit
// is kept only when asked (the master); a region that prints nothing
// gives nil; the file is emptied for the next region.
func TestCaptureSegments(t *testing.T) {
	type step struct {
		mark  int // ≥ 0: a unit begins; -1: print only
		print string
	}
	for _, tc := range []struct {
		name      string
		steps     []step
		keepFirst bool
		want      []byte
	}{
		{"nothing", []step{{mark: 0}, {mark: 5}}, true, nil},
		{"units", []step{{0, "a"}, {5, "bb"}, {-1, "c"}, {9, ""}}, false, segs(0, "a", 5, "bbc")},
		{"before, kept", []step{{-1, "head "}, {3, "x"}}, true, segs(-1, "head ", 3, "x")},
		{"before, dropped", []step{{-1, "head "}, {3, "x"}}, false, segs(3, "x")},
		{"only before, dropped", []step{{-1, "head "}}, false, nil},
		{"out of order", []step{{8, "late"}, {2, "early"}}, false, segs(8, "late", 2, "early")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeOut{}
			c := &Capture{sys: f}
			for region := range 2 { // the second region reuses the capture
				if err := c.Begin(); err != nil || !f.redirected {
					t.Fatalf("Begin: %v (redirected %v)", err, f.redirected)
				}
				for _, s := range tc.steps {
					if s.mark >= 0 {
						if err := c.Mark(s.mark); err != nil {
							t.Fatal(err)
						}
					}
					f.print(s.print)
				}
				got, err := c.End(tc.keepFirst)
				if err != nil || string(got) != string(tc.want) || (tc.want == nil) != (got == nil) {
					t.Fatalf("region %d: End = %x, %v; want %x", region, got, err, tc.want)
				}
				if f.redirected || len(f.data) != 0 {
					t.Fatalf("region %d: after End redirected %v, %d bytes in the file", region, f.redirected, len(f.data))
				}
			}
		})
	}
}

// TestCaptureOffAndNil checks that a nil capture (the platform has none)
// and a capture that is off do nothing and hold nothing, that Holds tells
// a capture that holds bytes, and that Discard drops what the region
// printed.
func TestCaptureOffAndNil(t *testing.T) {
	var nilCap *Capture
	if err := errors.Join(nilCap.Begin(), nilCap.Mark(1), nilCap.Discard()); err != nil {
		t.Fatal(err)
	}
	if b, err := nilCap.End(true); b != nil || err != nil {
		t.Fatalf("nil End = %x, %v", b, err)
	}
	f := &fakeOut{}
	c := &Capture{sys: f}
	if err := c.Mark(3); err != nil || len(c.marks) != 0 {
		t.Fatalf("Mark while off recorded %v, %v", c.marks, err)
	}
	if b, err := c.End(true); b != nil || err != nil {
		t.Fatalf("End while off = %x, %v", b, err)
	}
	if nilCap.Holds() || c.Holds() {
		t.Fatal("a nil capture, or one that is off, holds bytes")
	}
	c.Begin()
	c.Mark(0)
	if c.Holds() {
		t.Fatal("a capture holds bytes before anything was printed")
	}
	f.print("verify's re-run")
	if !c.Holds() {
		t.Fatal("a capture does not hold what was printed")
	}
	if err := c.Discard(); err != nil || f.redirected || len(f.data) != 0 {
		t.Fatalf("Discard: %v, redirected %v, %d bytes left", err, f.redirected, len(f.data))
	}
	if b, err := c.End(true); b != nil || err != nil {
		t.Fatalf("End after Discard = %x, %v", b, err)
	}
}

// TestCaptureErrors checks that every failure of the capture file is an
// error saying so, wrapping the cause, and that standard output is
// restored whenever it can be.
func TestCaptureErrors(t *testing.T) {
	for _, op := range []string{"redirect", "offset", "restore", "readAll", "reset"} {
		t.Run(op, func(t *testing.T) {
			f := &fakeOut{}
			c := &Capture{sys: f}
			var err error
			if op == "redirect" {
				f.failing = op
				if err = c.Begin(); c.on {
					t.Fatal("a capture whose redirect failed is on")
				}
			} else {
				if err := c.Begin(); err != nil {
					t.Fatal(err)
				}
				f.print("x")
				f.failing = op
				if op == "offset" {
					err = c.Mark(1)
				} else {
					_, err = c.End(true)
				}
			}
			if err == nil || !strings.HasPrefix(err.Error(), "capture standard output: ") || !strings.Contains(err.Error(), op+" failed") {
				t.Fatalf("%s failing: %v", op, err)
			}
			if op != "redirect" && op != "offset" && f.redirected {
				t.Fatalf("%s failing left standard output redirected", op)
			}
		})
	}
}
