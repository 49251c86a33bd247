package cape

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/cape-go/cape/cape/internal/stats"
)

// TestRegionFeatureFields checks that a region carries the state of
// --stats and --verify only when they are on (one field each, nil
// otherwise), and that --stats prints the region's line.
func TestRegionFeatureFields(t *testing.T) {
	n := the()
	var out bytes.Buffer
	old := statsOut
	statsOut = stats.NewLog(&out, nil)
	defer func() { statsOut = old; n.plan.Stats, n.plan.Verify = false, false }()
	x := Make[int64](16)
	line := regexp.MustCompile(`(?m)^cape: \S+: region fields #\d+: start \S+, compute \S+, create \S+ \(\d+ pages, \d+ bytes\), exchange \S+ = wait \S+ \+ merge/inject \S+ \+ send \S+ \(sent 0, received 0 bytes\)(; .*)?\n`)
	for _, tt := range []struct{ stats, verify bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		n.plan.Stats, n.plan.Verify = tt.stats, tt.verify
		out.Reset()
		r := Begin("fields")
		if err := r.Start(); err != nil {
			t.Fatal(err)
		}
		if (r.stats != nil) != tt.stats || (r.verify != nil) != tt.verify || r.dlog != nil {
			t.Errorf("stats %v verify %v: region holds stats %v, verify %v, durable log %v", tt.stats, tt.verify, r.stats != nil, r.verify != nil, r.dlog != nil)
		}
		x[3]++
		finishRegion(t, r)
		if tt.verify {
			r.VerifyBegin()
			x[3]++
			if err := r.VerifyEnd(); err != nil {
				t.Fatal(err)
			}
			if r.verify != nil {
				t.Error("VerifyEnd kept the region's copies of the arena")
			}
		}
		statsOut.Flush()
		if got := line.MatchString(out.String()); got != tt.stats {
			t.Errorf("stats %v: printed %q", tt.stats, out.String())
		}
	}
}
