package cape

import (
	"bytes"
	"slices"
	"testing"
)

// FuzzLazyMerged checks the lazy merged payload's parser: no panic; what
// it accepts has strictly increasing notices below the page count, and
// encodes back to the same bytes.
func FuzzLazyMerged(f *testing.F) {
	f.Add(appendLazyMerged(nil, []int{1, 5, 9}, []byte("envelope")), 16)
	f.Add(appendLazyMerged(nil, nil, nil), 1)
	f.Add([]byte{2, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0}, 8)
	f.Fuzz(func(t *testing.T, p []byte, npages int) {
		if npages < 0 || npages > 1<<20 {
			return
		}
		notices, env, err := openLazyMerged(p, npages, nil)
		if err != nil {
			return
		}
		for i, n := range notices {
			if n < 0 || n >= npages || (i > 0 && n <= notices[i-1]) {
				t.Fatalf("accepted notices %v for %d pages", notices, npages)
			}
		}
		again := appendLazyMerged(nil, notices, env)
		if !bytes.Equal(again, p) {
			t.Fatalf("%x parsed as %v + %x, which encodes as %x", p, notices, env, again)
		}
		if n2, _, err := openLazyMerged(again, npages, nil); err != nil || !slices.Equal(n2, notices) {
			t.Fatalf("re-parse: %v, %v", n2, err)
		}
	})
}
