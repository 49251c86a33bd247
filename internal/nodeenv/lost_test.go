package nodeenv

import (
	"os"
	"strings"
	"testing"
)

// TestLostRoundTrip writes a lost notice the way the master does and reads
// it back; lines that are not notices are refused.
func TestLostRoundTrip(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := &Config{Rank: 0, status: w}
	c.ReportLost(2, "declared lost in region #7:\na straggler")
	w.Close()
	var nilConfig *Config
	nilConfig.ReportLost(1, "no launcher") // no pipe: nothing happens
	b := make([]byte, 2*MaxReport)
	n, _ := r.Read(b)
	got, err := ParseLost(string(b[:n]))
	if err != nil || got.Rank != 2 || got.Reason != "declared lost in region #7: a straggler" {
		t.Fatalf("read back %q: %+v, %v", b[:n], got, err)
	}
	long := Lost{Rank: 3, Reason: strings.Repeat("x", 2*MaxReport)}.String()
	if len(long) > MaxReport {
		t.Errorf("a long notice is %d bytes, want at most %d", len(long), MaxReport)
	}
	for _, bad := range []string{"", "cape-lost/1 rank=0 reason=x", "cape-lost/1 rank=-1 reason=x",
		"cape-lost/1 rank=2", "cape-status/1 rank=0 blame=2 reason=x", "cape-lost/2 rank=2 reason=x"} {
		if l, err := ParseLost(bad); err == nil {
			t.Errorf("ParseLost(%q) = %+v, want an error", bad, l)
		}
	}
	if _, err := ParseReport(Lost{Rank: 2, Reason: "x"}.String()); err == nil {
		t.Error("a lost notice parses as a failure report")
	}
}
