package translate

import (
	"fmt"
	"testing"
)

// TestCopyFillsBySliceLength checks that copy into a private array counts
// as assigning it whole where the source's length, the difference of its
// bounds, is known and long enough, however the bounds are written.
func TestCopyFillsBySliceLength(t *testing.T) {
	head := "package main\n\nimport \"fmt\"\n" + `
var _ = fmt.Sprint

func run(a, out []int, n, w int) {
	var tmp [4]int
	//cape:parallel for private(tmp)
	for i := 0; i < n; i++ {
		copy(tmp[:], %s)
		out[i] = tmp[0] - tmp[3]
	}
}
`
	const refused = "tmp is private in the parallel loop, but an iteration reads tmp.0. here without assigning it first"
	for _, c := range []struct{ src, refused string }{
		{"a[4*i:4*i+4]", ""},
		{"a[i*4 : (i+1)*4]", ""},
		{"a[4*i+1 : 4*(i+1)+2]", ""},
		{"a[-i+2 : 6-i]", ""},
		{"a[4*i : 4*i+3]", refused},
		{"a[i : i+w]", refused},
		{"a[i*w : (i+1)*w]", refused},
	} {
		src := fmt.Sprintf(head, c.src)
		checkPrograms(t, src, []programCase{{c.src, "\n\trun(make([]int, 64), make([]int, 8), 8, 4)", c.refused}})
	}
}
