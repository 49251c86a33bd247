package stdio

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestMemfdCapture captures this process's real descriptor 1 into the
// memory file for two regions: what is written to it (with write(2), as
// the program's fmt.Print does) comes back as segments, and descriptor 1
// is the original again after End. Nothing else may print meanwhile: the
// test does not log until descriptor 1 is restored.
func TestMemfdCapture(t *testing.T) {
	c, err := NewCapture()
	if err != nil {
		t.Fatal(err)
	}
	var before, after unix.Stat_t
	if err := unix.Fstat(1, &before); err != nil {
		t.Fatal(err)
	}
	for region, want := range [][]byte{segs(-1, "head\n", 0, "unit 0\n", 7, "unit 7\n"), segs(2, "again\n")} {
		if err := c.Begin(); err != nil {
			t.Fatal(err)
		}
		var errs []error
		if region == 0 {
			_, e := os.Stdout.WriteString("head\n")
			errs = append(errs, e, c.Mark(0))
			_, e = os.Stdout.WriteString("unit 0\n")
			errs = append(errs, e, c.Mark(7))
			_, e = os.Stdout.WriteString("unit 7\n")
			errs = append(errs, e)
		} else {
			errs = append(errs, c.Mark(2))
			_, e := os.Stdout.WriteString("again\n")
			errs = append(errs, e)
		}
		got, err := c.End(true)
		for _, e := range errs {
			if e != nil {
				t.Fatalf("region %d: %v", region, e)
			}
		}
		if err != nil || string(got) != string(want) {
			t.Fatalf("region %d: End = %q, %v; want %q", region, got, err, want)
		}
	}
	if err := unix.Fstat(1, &after); err != nil {
		t.Fatal(err)
	}
	if before.Dev != after.Dev || before.Ino != after.Ino {
		t.Fatalf("descriptor 1 is %d:%d after the capture, was %d:%d", after.Dev, after.Ino, before.Dev, before.Ino)
	}
}
