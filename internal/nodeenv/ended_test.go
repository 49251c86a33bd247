package nodeenv

import (
	"os"
	"testing"
)

// TestEndedRoundTrip writes an ended line the way the master does and reads
// it back; lines that are not ended lines are refused, and it is neither a
// failure report nor a lost notice.
func TestEndedRoundTrip(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := &Config{Rank: 0, status: w}
	c.ReportEnded("finalized")
	w.Close()
	var nilConfig *Config
	nilConfig.ReportEnded("panicked") // no pipe: nothing happens
	b := make([]byte, 2*MaxReport)
	n, _ := r.Read(b)
	got, err := ParseEnded(string(b[:n]))
	if err != nil || got.Rank != 0 || got.How != "finalized" {
		t.Fatalf("read back %q: %+v, %v", b[:n], got, err)
	}
	for _, bad := range []string{"", "cape-ended/1 rank=x how=a", "cape-ended/1 rank=-1 how=a", "cape-ended/1 rank=0",
		"cape-ended/1 rank=0 how=", "cape-ended/2 rank=0 how=a", "cape-lost/1 rank=2 reason=x"} {
		if e, err := ParseEnded(bad); err == nil {
			t.Errorf("ParseEnded(%q) = %+v, want an error", bad, e)
		}
	}
	line := Ended{Rank: 0, How: "finalized"}.String()
	if _, err := ParseReport(line); err == nil {
		t.Error("an ended line parses as a failure report")
	}
	if _, err := ParseLost(line); err == nil {
		t.Error("an ended line parses as a lost notice")
	}
}
