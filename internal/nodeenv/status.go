package nodeenv

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/cape-go/cape/transport"
)

// StatusFD names the variable holding the descriptor of the launcher's
// status pipe. A node that fails writes one [Report] line there before it
// exits, so that the launcher can name the node the evidence points to
// rather than the first node to exit (usually a victim). The launcher passes
// it to every local node and to the master of an ssh job; it is optional.
const StatusFD = "CAPE_STATUS_FD"

// MaxReport bounds a report line, newline included. It is below PIPE_BUF
// (512 on every POSIX system), so that the lines of nodes writing to one
// pipe at once never interleave.
const MaxReport = 512

// reportPrefix starts every report line and carries the format's version.
const reportPrefix = "cape-status/1 "

// Report is a failing node's account of its failure.
type Report struct {
	Rank   int    // the node writing the report
	Blame  int    // the node the evidence points to: a peer, or Rank itself
	Reason string // what was seen, on one line
}

// ReportFor builds the report of node rank failing with err: it blames the
// peer named by the first *transport.NodeError in err's chain (a peer that
// closed, reset or timed out its connection), else rank itself.
func ReportFor(rank int, err error) Report {
	r := Report{Rank: rank, Blame: rank, Reason: "unknown error"}
	if err != nil {
		r.Reason = err.Error()
	}
	var ne *transport.NodeError
	if errors.As(err, &ne) && ne.Rank >= 0 && ne.Rank != rank {
		r.Blame = ne.Rank
		r.Reason = fmt.Sprintf("%s: %v", ne.Op, ne.Err)
	}
	return r
}

// String returns the report as one line, newline included, of at most
// MaxReport bytes: "cape-status/1 rank=R blame=B reason=TEXT".
func (r Report) String() string {
	return statusLine(fmt.Sprintf("%srank=%d blame=%d reason=", reportPrefix, r.Rank, r.Blame), r.Reason)
}

// statusLine is a status pipe line: head, then reason on one line, cut so
// that the whole, newline included, fits MaxReport bytes.
func statusLine(head, reason string) string {
	reason = strings.NewReplacer("\n", " ", "\r", " ").Replace(reason)
	if room := MaxReport - len(head) - 1; len(reason) > room {
		reason = strings.ToValidUTF8(reason[:max(room-3, 0)], "") + "..."
	}
	return head + reason + "\n"
}

// ParseReport reads one report line (with or without its newline).
func ParseReport(line string) (Report, error) {
	line = strings.TrimSuffix(line, "\n")
	rest, ok := strings.CutPrefix(line, reportPrefix)
	if !ok || len(line) >= MaxReport {
		return Report{}, fmt.Errorf("status line %.40q: not a %sreport", line, reportPrefix)
	}
	var r Report
	for _, f := range []struct {
		key string
		v   *int
	}{{"rank=", &r.Rank}, {"blame=", &r.Blame}} {
		word, after, _ := strings.Cut(rest, " ")
		num, ok := strings.CutPrefix(word, f.key)
		n, err := strconv.Atoi(num)
		if !ok || err != nil || n < 0 {
			return Report{}, fmt.Errorf("status line %.40q: want %sN", line, f.key)
		}
		*f.v, rest = n, after
	}
	reason, ok := strings.CutPrefix(rest, "reason=")
	if !ok {
		return Report{}, fmt.Errorf("status line %.40q: want reason=", line)
	}
	r.Reason = reason
	return r, nil
}

// ReportFailure writes this node's report of failing with err to the
// launcher's status pipe, when the launcher gave one; it does nothing
// otherwise, or when c is nil. It is meant for the runtime's exit path,
// just before the node ends.
func (c *Config) ReportFailure(err error) {
	if c == nil || c.status == nil {
		return
	}
	// One write of fewer than PIPE_BUF bytes: atomic, whole or not at all.
	_, _ = c.status.WriteString(ReportFor(c.Rank, err).String())
}

// openStatus returns the status pipe named by StatusFD, or nil when the
// variable is not set. The runtime takes the pipe over: the variable is
// removed from the environment and the descriptor made close-on-exec, so
// that the program's own children can neither find it nor write reports
// in the node's name.
func openStatus() (*os.File, error) {
	s := os.Getenv(StatusFD)
	if s == "" {
		return nil, nil
	}
	os.Unsetenv(StatusFD)
	fd, err := strconv.Atoi(s)
	if err != nil || fd < 3 {
		return nil, fmt.Errorf("%s=%q: want a file descriptor number ≥ 3", StatusFD, s)
	}
	closeOnExec(fd)
	return os.NewFile(uintptr(fd), "cape-status"), nil
}
