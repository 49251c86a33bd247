package cape

import (
	"testing"

	"github.com/cape-go/cape/internal/nodeenv"
)

// TestWantLazy checks the glue over lazy.Want (whose cases its own tests
// cover): the node's settings reach it, and an unknown mode is refused
// naming the setting.
func TestWantLazy(t *testing.T) {
	n := &node{size: 2, cfg: &nodeenv.Config{Size: 2, Transfer: "auto"}, everyRegionLast: true}
	if got, err := wantLazy(n); got || err != nil {
		t.Errorf("auto, every region last: %v, %v; want false", got, err)
	}
	n.everyRegionLast = false
	if got, err := wantLazy(n); !got || err != nil {
		t.Errorf("auto on 2 nodes: %v, %v; want true", got, err)
	}
	n.cfg.Transfer = "sometimes"
	want := `CAPE_TRANSFER="sometimes": want eager, lazy or auto`
	if _, err := wantLazy(n); err == nil || err.Error() != want {
		t.Errorf("an unknown mode: %v, want %q", err, want)
	}
}
