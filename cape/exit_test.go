package cape

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/cape-go/cape/internal/nodeenv"
)

// TestExitPaths re-runs the test binary to end it through the runtime's
// exit path: a closed lifeline ends the node with status LifelineExit,
// ErrJobDone with status 0 and no message, ErrJobAborted and any other
// error with status 1 and the message.
func TestExitPaths(t *testing.T) {
	if c := os.Getenv("CAPE_TEST_EXIT"); c != "" {
		switch c {
		case "lifeline":
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			w.Close()
			watchLifeline(r)
		case "done":
			Must(ErrJobDone)
		case "aborted":
			Must(errors.Join(ErrJobAborted, errors.New("node 2 failed")))
		case "other":
			Must(errors.New("something broke"))
		}
		t.Fatal("still running")
	}
	for _, c := range []struct {
		name   string
		status int
		stderr string
	}{
		{"lifeline", nodeenv.LifelineExit, "the launcher's connection closed"},
		{"done", 0, ""},
		{"aborted", 1, "the job was aborted"},
		{"other", 1, "cape: something broke"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestExitPaths$")
		cmd.Env = append(os.Environ(), "CAPE_TEST_EXIT="+c.name)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		status := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			status = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if status != c.status || c.stderr != "" && !strings.Contains(stderr.String(), c.stderr) || c.stderr == "" && stderr.Len() != 0 {
			t.Errorf("%s: status %d, stderr %q; want %d and %q", c.name, status, stderr.String(), c.status, c.stderr)
		}
	}
}

// TestPanicking: true in a deferred call a panic runs, false after a
// return, after a panic an earlier deferred call recovered, and under
// runtime.Goexit.
func TestPanicking(t *testing.T) {
	normal := func() (got bool) {
		defer func() { got = Panicking() }()
		return false
	}
	inFlight := func() (got bool) {
		defer func() { recover() }()
		defer func() { got = Panicking() }()
		panic("x")
	}
	recovered := func() (got bool) {
		defer func() { got = Panicking() }()
		defer func() { recover() }()
		panic("y")
	}
	goexit := make(chan bool)
	go func() {
		defer func() { goexit <- Panicking() }()
		runtime.Goexit()
	}()
	n, f, r, g := normal(), inFlight(), recovered(), <-goexit
	if n || !f || r || g {
		t.Errorf("Panicking: return %v, in flight %v, recovered %v, Goexit %v; want false true false false", n, f, r, g)
	}
}
