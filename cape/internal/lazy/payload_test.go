package lazy

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// FuzzMerged checks the lazy merged payload's parser: no panic; what
// it accepts has strictly increasing notices below the page count, and
// encodes back to the same bytes.
func FuzzMerged(f *testing.F) {
	f.Add(AppendMerged(nil, []int{1, 5, 9}, []byte("envelope")), 16)
	f.Add(AppendMerged(nil, nil, nil), 1)
	f.Add([]byte{2, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0}, 8)
	f.Fuzz(func(t *testing.T, p []byte, npages int) {
		if npages < 0 || npages > 1<<20 {
			return
		}
		notices, env, err := OpenMerged(p, npages, nil)
		if err != nil {
			return
		}
		for i, n := range notices {
			if n < 0 || n >= npages || (i > 0 && n <= notices[i-1]) {
				t.Fatalf("accepted notices %v for %d pages", notices, npages)
			}
		}
		again := AppendMerged(nil, notices, env)
		if !bytes.Equal(again, p) {
			t.Fatalf("%x parsed as %v + %x, which encodes as %x", p, notices, env, again)
		}
		if n2, _, err := OpenMerged(again, npages, nil); err != nil || !slices.Equal(n2, notices) {
			t.Fatalf("re-parse: %v, %v", n2, err)
		}
	})
}

// TestMergedRoundTrip encodes notices and an envelope and reads them back;
// refusals name what is wrong.
func TestMergedRoundTrip(t *testing.T) {
	for _, c := range []struct {
		notices []int
		npages  int
		env     string
	}{
		{nil, 0, ""},
		{[]int{0}, 1, "x"},
		{[]int{0, 7, 1 << 20}, 1<<20 + 1, "envelope"},
	} {
		p := AppendMerged([]byte("prefix"), c.notices, []byte(c.env))
		notices, env, err := OpenMerged(p[len("prefix"):], c.npages, []int{9, 9, 9, 9})
		if err != nil || !slices.Equal(notices, c.notices) || string(env) != c.env {
			t.Errorf("%v, %q: read back %v, %q, %v", c.notices, c.env, notices, env, err)
		}
	}
	for _, c := range []struct {
		p      []byte
		npages int
		want   string
	}{
		{[]byte{1, 0, 0}, 4, "too short"},
		{[]byte{5, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0}, 4, "more than the 4 pages"},
		{[]byte{2, 0, 0, 0, 1, 0, 0, 0}, 4, "than the payload holds"},
		{[]byte{1, 0, 0, 0, 4, 0, 0, 0}, 4, "notice 0 for page 4: outside"},
		{[]byte{2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0}, 4, "notice 1 for page 2: outside the 4 pages or out of order"},
	} {
		if _, _, err := OpenMerged(c.p, c.npages, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%x: %v, want an error with %q", c.p, err, c.want)
		}
	}
}
