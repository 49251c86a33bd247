package nodeenv

import "fmt"

// endedPrefix starts the status pipe's line by which the master tells the
// launcher that its program has ended by itself, and carries its version.
const endedPrefix = "cape-ended/1 "

// Ended is the master's word to the launcher that its program ended by
// itself (main returned or called os.Exit after the job's end, or
// panicked): the status the master then exits with is the program's own,
// not the job's failure, and a slave that fails after it (a loss the
// master survived, or one it never needed to know of) does not change it.
type Ended struct {
	Rank int    // the node, 0
	How  string // "finalized" (Finalize ended the job), "unwound" (main panicked or called Goexit)
}

// String returns the line, newline included: "cape-ended/1 rank=R how=HOW".
func (e Ended) String() string {
	return statusLine(fmt.Sprintf("%srank=%d how=", endedPrefix, e.Rank), e.How)
}

// ParseEnded reads one ended line (with or without its newline).
func ParseEnded(line string) (Ended, error) {
	rank, how, err := parseRankLine(line, endedPrefix, "how=", 0)
	if err == nil && how == "" {
		err = fmt.Errorf("status line %.40q: want how=WORD", line)
	}
	if err != nil {
		return Ended{}, err
	}
	return Ended{Rank: rank, How: how}, nil
}

// ReportEnded tells the launcher, through its status pipe, that this node's
// program ended by itself, how. It does nothing without a pipe, or when c
// is nil.
func (c *Config) ReportEnded(how string) {
	if c == nil || c.status == nil {
		return
	}
	// One write of fewer than PIPE_BUF bytes: atomic, whole or not at all.
	_, _ = c.status.WriteString(Ended{Rank: c.Rank, How: how}.String())
}
