package launch

import (
	"strings"
	"testing"
)

// TestCheckLocalNodes: a job of more nodes on one machine than its cores
// can start is refused naming the limit and the way out; one within it
// is not.
func TestCheckLocalNodes(t *testing.T) {
	for _, c := range []struct {
		nodes, cores int
		want         string
	}{
		{64, 2, ""},
		{65, 2, "65 nodes on this machine's 2 cores: at most 64 can start"},
		{128, 16, ""},
		{129, 16, "at most 128 can start on one machine"},
		{1000, 2, "--hostfile"},
	} {
		err := CheckLocalNodes(c.nodes, c.cores)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%d nodes, %d cores: %v", c.nodes, c.cores, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%d nodes, %d cores: %v; want %q", c.nodes, c.cores, err, c.want)
		}
	}
}
