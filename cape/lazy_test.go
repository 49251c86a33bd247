package cape

import (
	"testing"

	"github.com/cape-go/cape/internal/nodeenv"
)

// TestWantLazy checks the glue over lazy.Want: the node's settings reach
// it, and an unknown mode is refused naming the setting.
func TestWantLazy(t *testing.T) {
	for _, c := range []struct {
		transfer string
		size     int
		last     bool
		want     bool
		err      string
	}{
		{transfer: "auto", size: 2, want: true},
		{transfer: "auto", size: 2, last: true},
		{transfer: "lazy", size: 1},
		{transfer: "lazy", size: 2, last: true, want: true},
		{transfer: "sometimes", size: 2, err: `CAPE_TRANSFER="sometimes": want eager, lazy or auto`},
	} {
		n := &node{size: c.size, cfg: &nodeenv.Config{Size: c.size, Transfer: c.transfer}, everyRegionLast: c.last}
		got, err := wantLazy(n)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%s: %v, want %q", c.transfer, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("transfer %s on %d nodes, every region last %v: %v, %v; want %v", c.transfer, c.size, c.last, got, err, c.want)
		}
	}
}
