package nodeenv

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/cape-go/cape/internal/arena"
)

// Fault names the variable that makes a chosen node fail on purpose (see
// package cape, which parses it).
const Fault = "CAPE_FAULT"

// FaultSpec returns the fault injection spec of Fault, or "". Package cape
// parses it; it is read for single-node runs too.
func FaultSpec() string { return os.Getenv(Fault) }

// ArenaSize returns the arena size configured in arena.SizeEnv, or
// arena.DefaultSize. It is read before Init (package-level variables may be
// allocated in the arena), for single-node runs too.
func ArenaSize() (int, error) {
	s := os.Getenv(arena.SizeEnv)
	if s == "" {
		return arena.DefaultSize, nil
	}
	n, err := arena.ParseSize(s)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", arena.SizeEnv, err)
	}
	return n, nil
}

// peerTimeout reads Timeout: a positive Go duration, or unset.
func peerTimeout(get func(string) string) (string, time.Duration, error) {
	s := get(Timeout)
	if s == "" {
		return "", 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return "", 0, fmt.Errorf("%s=%q: want a positive duration such as 10s", Timeout, s)
	}
	return s, d, nil
}

// maxLost reads MaxLost: an integer, negative for no cap; unset means no
// cap.
func maxLost(get func(string) string) (int, error) {
	s := get(MaxLost)
	if s == "" {
		return -1, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%s=%q: want an integer (negative: no cap)", MaxLost, s)
	}
	return max(n, -1), nil
}

// Forget removes the launcher's variables (CAPE_*) from the node's
// environment once the runtime has read them: the program's own children
// must not take them for theirs (a CAPE program the program starts would
// take itself for a node of this job), and the program sees the
// environment go run would give it.
func Forget() {
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "CAPE_") {
			os.Unsetenv(k)
		}
	}
}
