package cape

import (
	"errors"
	"os"
	"os/exec"
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
