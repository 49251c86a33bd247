package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/cape-go/cape/internal/launch"
	"github.com/cape-go/cape/internal/testenv"
)

var (
	seqOnce sync.Map // n → checksum line of the sequential reference
)

// matmulReference runs examples/matmul -seq directly (one node, no region).
func matmulReference(t *testing.T, n int) string {
	t.Helper()
	if v, ok := seqOnce.Load(n); ok {
		return v.(string)
	}
	out, err := exec.Command("go", "run", "../../examples/template", "-seq", "-n", strconv.Itoa(n)).Output()
	if err != nil {
		t.Fatalf("sequential matmul: %v", err)
	}
	line := checksumLine(t, string(out))
	seqOnce.Store(n, line)
	return line
}

func checksumLine(t *testing.T, out string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^matmul n=\d+ checksum=[0-9a-f]{16}$`).FindString(out)
	if m == "" {
		t.Fatalf("no checksum line in output %q", out)
	}
	return m
}

func TestRunMatmulMatchesSequential(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end runs take a few seconds")
	}
	t.Parallel()
	cases := []struct {
		n, nodes int
		monitor  string
		prog     string // default: the annotated examples/matmul
		full     bool   // only with CAPE_TEST_FULL=1
	}{
		{300, 3, "auto", "../../examples/template", false}, {300, 2, "compare", "../../examples/template", false},
		{300, 1, "auto", "", true}, {300, 2, "auto", "", true}, {300, 3, "auto", "", false}, {300, 4, "auto", "", true},
		{1024, 1, "auto", "", true}, {1024, 2, "auto", "", true}, {1024, 3, "auto", "", true}, {1024, 4, "auto", "", true},
		{300, 3, "compare", "", false}, {300, 3, "complete", "", false}, {257, 4, "compare", "", false},
	}
	for _, c := range cases {
		if c.prog == "" {
			c.prog = "../../examples/matmul"
		}
		t.Run(fmt.Sprintf("%s/n=%d/nodes=%d/%s", filepath.Base(c.prog), c.n, c.nodes, c.monitor), func(t *testing.T) {
			if c.full {
				testenv.Full(t)
			}
			want := matmulReference(t, c.n)
			var stdout, stderr bytes.Buffer
			args := []string{"-n", strconv.Itoa(c.nodes), "--monitor", c.monitor, sharedBuild(t, c.prog), "--", "-n", strconv.Itoa(c.n)}
			if err := run(append([]string{"run"}, args...), &stdout, &stderr); err != nil {
				t.Fatalf("cape run %s: %v\nstderr:\n%s", strings.Join(args, " "), err, stderr.String())
			}
			if got := checksumLine(t, stdout.String()); got != want {
				t.Fatalf("cape run %s printed %q, sequential run printed %q", strings.Join(args, " "), got, want)
			}
			if strings.Count(stdout.String(), "checksum") != 1 {
				t.Errorf("stdout has more than the master's output:\n%s", stdout.String())
			}
		})
	}
}

// lockedBuffer is a bytes.Buffer safe for concurrent writes and reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestRunSlaveKilledMidRegion(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	pr, pw := io.Pipe()
	var stdout lockedBuffer
	var stderr lockedBuffer
	done := make(chan error, 1)
	go func() {
		// --max-lost 0: the strict policy (survive_test.go has the default).
		done <- run([]string{"run", "-n", "3", "--max-lost", "0", "./testdata/stall"}, &stdout, io.MultiWriter(pw, &stderr))
		pw.Close()
	}()
	pids := map[string]int{} // "" for the master, "[node N] " for slaves
	pidRe := regexp.MustCompile(`^(\[node \d+\] )?pid (\d+)$`)
	sc := bufio.NewScanner(pr)
	var victim int
	for sc.Scan() {
		line := sc.Text()
		if m := pidRe.FindStringSubmatch(line); m != nil {
			pid, _ := strconv.Atoi(m[2])
			pids[m[1]] = pid
		}
		if line == "[node 2] in region" {
			victim = pids["[node 2] "]
		}
		if victim != 0 && len(pids) == 3 {
			break
		}
	}
	go io.Copy(io.Discard, pr)
	if victim == 0 {
		t.Fatalf("node 2 never reported being in the region; stderr:\n%s", stderr.String())
	}
	killed := time.Now()
	if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("cape run still running 10s after node 2 was killed; stderr:\n%s", stderr.String())
	}
	took := time.Since(killed)
	var ee *launch.ExitError
	if !errors.As(err, &ee) || ee.Code == 0 {
		t.Fatalf("cape run returned %v, want a non-zero exit", err)
	}
	if !strings.Contains(err.Error(), "node 2") {
		t.Errorf("error %q does not name node 2", err)
	}
	if took > 5*time.Second {
		t.Errorf("cape run took %v to end after node 2 died, want < 5s", took)
	}
	for who, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("process %q (pid %d) is still there after cape run returned", who, pid)
		}
	}
	if len(pids) != 3 {
		t.Errorf("saw %d node pids, want 3; stderr:\n%s", len(pids), stderr.String())
	}
	t.Logf("cape run ended %v after the kill: %v", took.Round(time.Millisecond), err)
}

// TestRunTMPDIRMissing: a TMPDIR that does not exist is named as such,
// not as a bare "stat /nonexistent".
func TestRunTMPDIRMissing(t *testing.T) {
	t.Setenv("TMPDIR", "/nonexistent-cape-test")
	var stdout, stderr bytes.Buffer
	err := run([]string{"run", "-n", "1", "./testdata/tworegions"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "TMPDIR=/nonexistent-cape-test") {
		t.Fatalf("cape run with a missing TMPDIR: %v, want an error naming TMPDIR", err)
	}
	t.Logf("cape run with TMPDIR=/nonexistent-cape-test: %v", err)
}

// TestRunHangInSetUp stops node 2 of a 4-node job right after it joined,
// while the relay links are being built (CAPE_FAULT at=init): cape run must
// end within about --timeout, naming node 2 (it took 12 s with --timeout 3s
// when only the relay set-up's deadline noticed).
func TestRunHangInSetUp(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	bin := filepath.Join(t.TempDir(), "stall")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/stall").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	t.Setenv("CAPE_FAULT", "node=2,at=init,do=stall")
	var stdout, stderr lockedBuffer
	start := time.Now()
	err := run([]string{"run", "-n", "4", "--timeout", "3s", "--max-lost", "0", bin}, &stdout, &stderr)
	took := time.Since(start)
	t.Logf("node 2 hung in set-up: cape run ended after %v: %v", took.Round(100*time.Millisecond), err)
	if err == nil || !strings.HasPrefix(strings.TrimPrefix(err.Error(), "run: "), "node 2 (") {
		t.Errorf("cape run returned %v, want an error naming node 2; stderr:\n%s", err, stderr.String())
	}
	if took > 8*time.Second {
		t.Errorf("took %v to notice a node hung in set-up, want about --timeout (3s)", took)
	}
}

// TestMisplacedFlagHint: cape run's long flags written after the package
// are named in the hint, the program's own flags and what follows an
// explicit -- are not.
func TestMisplacedFlagHint(t *testing.T) {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fs.Bool("stats", false, "")
	fs.IntP("nodes", "n", 1, "")
	fs.String("checkpoint", "", "")
	for _, c := range []struct {
		args []string
		want string // "" for no hint
	}{
		{[]string{"--stats", "-n", "64"}, "--stats after the package went to the program; that flag of cape run goes before PACKAGE (cape run --stats ... PACKAGE)"},
		{[]string{"-stats", "--checkpoint=ck"}, "-stats, --checkpoint=ck after the package"},
		{[]string{"-n", "64", "-iters", "3"}, ""},
		{[]string{"-size", "3", "--", "--stats"}, ""},
		{[]string{"stats"}, ""},
	} {
		got := misplacedFlagHint(fs, c.args)
		if (c.want == "") != (got == "") || !strings.HasPrefix(got, c.want) {
			t.Errorf("misplacedFlagHint(%q) = %q, want prefix %q", c.args, got, c.want)
		}
	}
}
