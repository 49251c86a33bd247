package cape

import "testing"

// TestDurableDefaultBound checks the bound without --checkpoint-max: four
// times the arena's extent in use, at least 64 MiB, never shrinking when
// the extent does; --checkpoint-max replaces it.
func TestDurableDefaultBound(t *testing.T) {
	d := &durable{}
	for _, c := range []struct {
		extent int
		want   int64
	}{
		{0, 64 << 20},
		{4 << 20, 64 << 20},
		{100 << 20, 400 << 20},
		{1 << 20, 400 << 20}, // the extent shrank: the bound stays
		{200 << 20, 800 << 20},
	} {
		if got := d.bound(c.extent); got != c.want {
			t.Fatalf("default bound for an extent of %d bytes: %d, want %d", c.extent, got, c.want)
		}
	}
	d = &durable{max: 1 << 20}
	if got := d.bound(100 << 20); got != 1<<20 {
		t.Fatalf("bound with --checkpoint-max 1M: %d", got)
	}
}
