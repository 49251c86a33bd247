package nodeenv

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cape-go/cape/transport"
)

func TestReportFor(t *testing.T) {
	lost := fmt.Errorf("region r (#1): gather deltas: %w",
		&transport.NodeError{Rank: 2, Addr: "10.0.0.2:5000", Op: "recv", Err: transport.ErrPeerClosed})
	cases := []struct {
		rank   int
		err    error
		blame  int
		reason string
	}{
		{0, lost, 2, "recv: peer closed the connection"},
		{2, lost, 2, lost.Error()}, // about itself: its own failure
		{1, errors.New("reduction: overflow"), 1, "reduction: overflow"},
		{1, &transport.NodeError{Rank: -1, Op: "recv", Err: transport.ErrAuth}, 1, "node ? (): recv: authentication failed"},
		{3, nil, 3, "unknown error"},
	}
	for _, c := range cases {
		r := ReportFor(c.rank, c.err)
		if r.Rank != c.rank || r.Blame != c.blame || r.Reason != c.reason {
			t.Errorf("ReportFor(%d, %v) = %+v, want blame %d, reason %q", c.rank, c.err, r, c.blame, c.reason)
		}
	}
}

func TestReportRoundTrip(t *testing.T) {
	for _, r := range []Report{
		{Rank: 0, Blame: 2, Reason: "recv: peer timeout: nothing received for 3s"},
		{Rank: 5, Blame: 5, Reason: "two\nlines\r"},
		{Rank: 1, Blame: 0, Reason: strings.Repeat("é", 1000)},
		{Rank: 7, Blame: 3, Reason: ""},
	} {
		line := r.String()
		if len(line) > MaxReport || !strings.HasSuffix(line, "\n") || strings.Count(line, "\n") != 1 {
			t.Fatalf("%+v: line of %d bytes %q", r, len(line), line)
		}
		got, err := ParseReport(line)
		if err != nil {
			t.Fatalf("%+v: %v", r, err)
		}
		want := strings.NewReplacer("\n", " ", "\r", " ").Replace(r.Reason)
		if got.Rank != r.Rank || got.Blame != r.Blame || !strings.HasPrefix(want, strings.TrimSuffix(got.Reason, "...")) {
			t.Errorf("%+v came back as %+v", r, got)
		}
	}
	for _, bad := range []string{"", "hello", "cape-status/1 rank=x blame=1 reason=", "cape-status/1 rank=1 blame=-2 reason=",
		"cape-status/1 rank=1 blame=2", "cape-status/2 rank=1 blame=2 reason=r", "cape-status/1 rank=1 blame=2 reason=" + strings.Repeat("x", MaxReport)} {
		if r, err := ParseReport(bad); err == nil {
			t.Errorf("ParseReport(%.60q) = %+v, want an error", bad, r)
		}
	}
}

// TestReportFailure writes a report the way the runtime's exit path does
// and reads it back from the launcher's end of the pipe.
func TestReportFailure(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := &Config{Rank: 1, status: w}
	c.ReportFailure(&transport.NodeError{Rank: 0, Op: "send", Err: transport.ErrPeerClosed})
	w.Close()
	var nilConfig *Config
	nilConfig.ReportFailure(errors.New("no launcher")) // no pipe: nothing happens
	(&Config{}).ReportFailure(errors.New("no pipe"))
	b := make([]byte, 2*MaxReport)
	n, _ := r.Read(b)
	got, err := ParseReport(string(b[:n]))
	if err != nil || got.Rank != 1 || got.Blame != 0 || got.Reason != "send: peer closed the connection" {
		t.Fatalf("read back %q: %+v, %v", b[:n], got, err)
	}
}

func FuzzParseReport(f *testing.F) {
	f.Add("cape-status/1 rank=0 blame=2 reason=recv: peer closed the connection\n")
	f.Add("cape-status/1 rank=1 blame=1 reason=")
	f.Fuzz(func(t *testing.T, line string) {
		r, err := ParseReport(line)
		if err != nil {
			return
		}
		if r.Rank < 0 || r.Blame < 0 {
			t.Fatalf("%q: negative rank in %+v", line, r)
		}
		// What parses, written again, parses to the same report.
		again, err := ParseReport(r.String())
		if err != nil || again.Rank != r.Rank || again.Blame != r.Blame {
			t.Fatalf("%q: %+v written as %q reads back as %+v, %v", line, r, r.String(), again, err)
		}
	})
}
