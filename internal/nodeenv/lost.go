package nodeenv

import (
	"fmt"
	"strconv"
	"strings"
)

// lostPrefix starts the status pipe's line by which a master tells the
// launcher that it declared a slave lost, and carries its version.
const lostPrefix = "cape-lost/1 "

// Lost is a master's word to the launcher that it declared a slave lost:
// the job goes on without it, so the launcher stops the node (its process
// group, or its ssh session) instead of waiting for it to end.
type Lost struct {
	Rank   int    // the slave declared lost, > 0
	Reason string // why, on one line
}

// String returns the notice as one line, newline included, of at most
// MaxReport bytes: "cape-lost/1 rank=R reason=TEXT".
func (l Lost) String() string {
	return statusLine(fmt.Sprintf("%srank=%d reason=", lostPrefix, l.Rank), l.Reason)
}

// ParseLost reads one lost notice line (with or without its newline).
func ParseLost(line string) (Lost, error) {
	rank, reason, err := parseRankLine(line, lostPrefix, "reason=", 1)
	if err != nil {
		return Lost{}, err
	}
	return Lost{Rank: rank, Reason: reason}, nil
}

// parseRankLine reads a status pipe line "PREFIXrank=N KEYTEXT" (with or
// without its newline), N at least minRank, and returns N and TEXT.
func parseRankLine(line, prefix, key string, minRank int) (int, string, error) {
	line = strings.TrimSuffix(line, "\n")
	rest, ok := strings.CutPrefix(line, prefix)
	if !ok || len(line) >= MaxReport {
		return 0, "", fmt.Errorf("status line %.40q: not a %sline", line, prefix)
	}
	word, text, _ := strings.Cut(rest, " ")
	num, ok := strings.CutPrefix(word, "rank=")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < minRank {
		return 0, "", fmt.Errorf("status line %.40q: want rank=N, N ≥ %d", line, minRank)
	}
	if text, ok = strings.CutPrefix(text, key); !ok {
		return 0, "", fmt.Errorf("status line %.40q: want %s", line, key)
	}
	return n, text, nil
}

// ReportLost tells the launcher, through its status pipe, that this node
// (the master) declared slave rank lost. It does nothing without a pipe,
// or when c is nil.
func (c *Config) ReportLost(rank int, reason string) {
	if c == nil || c.status == nil {
		return
	}
	// One write of fewer than PIPE_BUF bytes: atomic, whole or not at all.
	_, _ = c.status.WriteString(Lost{Rank: rank, Reason: reason}.String())
}
