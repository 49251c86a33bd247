package cape

import (
	"os"

	"github.com/cape-go/cape/cape/internal/stats"
)

// statsOut batches the lines --stats prints for every region, to standard
// error (stats.Log: written one by one, they slowed the regions measured).
// They go out when enough are pending or time has passed, and when the
// node ends (Finalize, exit).
var statsOut = stats.NewLog(os.Stderr, nil)

// statsf adds a --stats line.
func statsf(format string, args ...any) { statsOut.Printf(format, args...) }

// flushStats writes the pending --stats lines.
func flushStats() { statsOut.Flush() }
