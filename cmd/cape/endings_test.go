package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cape-go/cape/internal/launch"
)

// TestProgramEndings: a program that ends by itself after its loop of
// regions with a status of its own (os.Exit(3), a panic, runtime.Goexit,
// a recovered panic that exits 7, log.Fatalf), or in an iteration of the
// last region (os.Exit, log.Fatalf, a panic), gets the output and the status of its
// plain build, also when a slave is killed in the last region (the
// launcher took the killed slave's 137 for the job's before the master
// told it its program had ended; a Goexit in main hung the job).
func TestProgramEndings(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	bin := sharedBuild(t, "./testdata/endings")
	plain := filepath.Join(t.TempDir(), "endings")
	build := exec.Command("go", "build", "-o", plain, ".")
	build.Dir = "./testdata/endings"
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, c := range []struct {
		how  string
		code int
	}{{"exit", 3}, {"panic", 2}, {"goexit", 2}, {"recover", 7}, {"fatal", 1}, {"exitin", 3}, {"fatalin", 1}, {"panicin", 2}} {
		want, err := exec.Command(plain, "-how", c.how).Output()
		var xe *exec.ExitError
		if !errors.As(err, &xe) || xe.ExitCode() != c.code {
			t.Fatalf("%s: the plain build ended with %v, want status %d", c.how, err, c.code)
		}
		for _, fault := range []string{"", "node=1,at=exchange,do=crash,region=4", "node=1,at=compute,do=crash,region=4"} {
			t.Setenv("CAPE_FAULT", fault)
			out, errText, err := capeRun("3", nil, bin, []string{"-how", c.how})
			os.Unsetenv("CAPE_FAULT")
			var ee *launch.ExitError
			if !errors.As(err, &ee) || ee.Code != c.code || out != string(want) {
				t.Errorf("%s, fault %q: %v, printed %q; want status %d and %q\n%s", c.how, fault, err, out, c.code, want, errText)
			}
			// The master's trace is go run's: the panic's line on top,
			// not a generated function that recovered and panicked again.
			if c.how == "panicin" && (!strings.Contains(errText, "\npanic: iteration 4000\n\ngoroutine 1 [running]:\nmain.main()\n") ||
				strings.Contains(errText, "recovered")) {
				t.Errorf("panicin, fault %q: the master's trace is not go run's:\n%s", fault, errText)
			}
			if c.how == "goexit" && !strings.Contains(errText, "main called runtime.Goexit") {
				t.Errorf("goexit, fault %q: no fatal error as go run's:\n%s", fault, errText)
			}
		}
	}
}

// TestRecoveredPanicStops: a panic an iteration raises, recovered in the
// function that holds the region or in main, lets go run go on; under cape
// run the region was left part-way (its output captured, other nodes
// waiting), and the job printed nothing more with status 0, or hung. It
// must stop with status 1 naming the region.
func TestRecoveredPanicStops(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	bin := sharedBuild(t, "./testdata/recovered")
	for _, where := range []string{"fn", "main"} {
		for _, nodes := range []string{"2", "3"} {
			_, errText, err := capeRun(nodes, nil, bin, []string{"-where", where})
			var ee *launch.ExitError
			if !errors.As(err, &ee) || ee.Code != 1 || !strings.Contains(errText, "was left part-way by a panic the program recovered") {
				t.Errorf("-where %s on %s nodes: %v, want status 1 and the region named\n%s", where, nodes, err, errText)
			}
		}
	}
}

// TestExitInRegion: a program that ends inside a region (os.Exit in an
// iteration) after the region's iterations printed ends with its own
// status. On 2 nodes the iteration is in node 1's block: node 1 ends, the
// master re-runs its block and ends there too, having run every iteration
// before it, so the lines go to standard output as under go run. On 3
// nodes node 1 ran iterations before it: the nodes that printed write
// those lines on standard error, saying they could not take their place
// in the output, and where the status is 0 the job ends with status 1
// instead, saying why. The master says that a slave whose program ended
// so ended inside the region, not before it (which would be sequential
// code taking another path).
func TestExitInRegion(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	bin := sharedBuild(t, "./testdata/endings")
	want := "iteration 0\niteration 1000\niteration 2000\niteration 3000\niteration 4000\n"
	for _, how := range []string{"exitprint", "exitzero"} {
		status := map[string]int{"exitprint": 3, "exitzero": 0}[how]
		out, errText, err := capeRun("2", nil, bin, []string{"-how", how})
		var ee *launch.ExitError
		if status == 0 && err != nil || status != 0 && (!errors.As(err, &ee) || ee.Code != status) || out != want {
			t.Errorf("-how %s on 2 nodes: %v, printed %q, want status %d and %q\n%s", how, err, out, status, want, errText)
		}
		if strings.Contains(errText, "ended before this region") || !strings.Contains(errText, "node 1's program ended inside this region") {
			t.Errorf("the master does not say that node 1's program ended inside the region:\n%s", errText)
		}
		_, errText, err = capeRun("3", nil, bin, []string{"-how", how})
		if !errors.As(err, &ee) || ee.Code != max(status, 1) || !strings.Contains(errText, "what its iterations printed on this node cannot take its place in the output") {
			t.Fatalf("-how %s on 3 nodes: %v, want status %d and the held output said\n%s", how, err, max(status, 1), errText)
		}
		if status == 0 && !strings.Contains(errText, "the program ends with status 0 inside region") {
			t.Errorf("-how %s on 3 nodes: status 1 not explained:\n%s", how, errText)
		}
		for _, line := range []string{"[node 2] iteration 4000", "\niteration 0\n"} {
			if status != 0 && !strings.Contains(errText, line) {
				t.Errorf("-how %s on 3 nodes: standard error lacks %q, printed in the region before the program ended:\n%s", how, line, errText)
			}
		}
	}
}
