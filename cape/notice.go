package cape

import (
	"fmt"
	"io"
	"os"
	"sync"
)

// notices is the one place the runtime tells the user something: every
// notice, warning and failure line of this node (not the program's output,
// nor --stats, which statslog batches) is written by notice, one line a
// call, to standard error, where the launcher shows a slave's prefixed with
// its rank.
var notices = struct {
	sync.Mutex           // protects the following field and orders whole lines
	out        io.Writer // standard error; tests may swap it
}{out: os.Stderr}

// notice formats one notice (format ends with its newline) and writes it
// whole.
func notice(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	notices.Lock()
	defer notices.Unlock()
	_, _ = io.WriteString(notices.out, s)
}
