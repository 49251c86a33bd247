package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cape-go/cape/internal/nodeenv"
)

// jobResult is what a cape run in the background printed.
type jobResult struct {
	out, errText string
	err          error
}

// startJob runs cape run -n 2 --checkpoint ck --transfer eager (a job with
// the lazy transfer admits no joining node) --checkpoint-max 1G (above the
// default bound: a compaction past a joining node's position sends it away)
// in the background and waits until its master has written the join file.
func startJob(t *testing.T, bin, ck string, args []string, flags ...string) <-chan jobResult {
	t.Helper()
	res := make(chan jobResult, 1)
	go func() {
		out, errText, err := capeRun("2", append([]string{"--checkpoint", ck, "--transfer", "eager", "--checkpoint-max", "1G"}, flags...), bin, args)
		res <- jobResult{out, errText, err}
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(ck, nodeenv.JoinFile)); err == nil {
			return res
		}
		select {
		case r := <-res:
			t.Fatalf("the job ended before it wrote its join file: %v\n%s", r.err, r.errText)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("no join file after 20s")
		}
	}
}

var sharesRE = regexp.MustCompile(`node (\d+): joined after \S+; took a share of (\d+) regions? \(#(\d+) to #(\d+)\)`)

// TestJoinRunningJob joins a node to a running 2-node job with a
// checkpoint log: the job's output is the fault-free run's, the joined
// node took a share of the regions after it joined (its --stats lines show
// them), and the join file is gone once the job ended.
func TestJoinRunningJob(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	for _, p := range []struct {
		dir  string
		args []string
	}{
		{"../../examples/stencil", []string{"-n", "120", "-iters", "2000"}},
		// Reductions, a lastprivate value, a dynamic schedule, output
		// between regions; -pause makes the sequential code the job's
		// pace, which a joining node cannot outrun.
		{"./testdata/ckptloop", []string{"-n", "3000", "-steps", "150", "-pause", "10ms"}},
	} {
		t.Run(filepath.Base(p.dir), func(t *testing.T) {
			bin := sharedBuild(t, p.dir)
			want, errText, err := capeRun("2", nil, bin, p.args)
			if err != nil {
				t.Fatalf("fault-free run: %v\n%s", err, errText)
			}
			ck := filepath.Join(t.TempDir(), "ck")
			res := startJob(t, bin, ck, p.args, "--stats")
			var jerr bytes.Buffer
			joinErr := run([]string{"join", ck}, io.Discard, &jerr)
			r := <-res
			if r.err != nil {
				t.Fatalf("the job: %v\n%s\njoining node:\n%s", r.err, r.errText, jerr.String())
			}
			if joinErr != nil {
				t.Fatalf("cape join: %v\n%s", joinErr, jerr.String())
			}
			if r.out != want {
				t.Fatalf("with a node joining, the job printed\n%s\nthe fault-free run printed\n%s", r.out, want)
			}
			m := sharesRE.FindStringSubmatch(jerr.String())
			if m == nil {
				t.Fatalf("the joining node took no share:\n%s", jerr.String())
			}
			first, _ := strconv.Atoi(m[3])
			if !strings.Contains(r.errText, "node "+m[1]+" joined at") {
				t.Errorf("the master does not report node %s joining:\n%s", m[1], r.errText)
			}
			if stat := "cape: node " + m[1] + ": region main.go:"; !strings.Contains(jerr.String(), stat) ||
				!strings.Contains(jerr.String(), "#"+strconv.Itoa(first)+": start") {
				t.Errorf("the joined node's --stats show no region #%d:\n%s", first, jerr.String())
			}
			if _, err := os.Stat(filepath.Join(ck, nodeenv.JoinFile)); !os.IsNotExist(err) {
				t.Errorf("the join file outlived the job: %v", err)
			}
			t.Logf("node %s joined: shares of regions #%s to #%s", m[1], m[3], m[4])
		})
	}
}

// TestJoinRefused checks that a node is refused, with a clear error, when
// no job runs in the directory, when its program is not the job's (cape
// join --program, and CAPE_JOIN with another binary), and when the join
// file may be read by others.
func TestJoinRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs")
	}
	t.Parallel()
	job := sharedBuild(t, "./testdata/ckptloop")
	other := sharedBuild(t, "../../examples/stencil")
	ck := filepath.Join(t.TempDir(), "ck")
	if err := os.Mkdir(ck, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"join", ck}, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "no job with a checkpoint log") {
		t.Errorf("cape join without a job: %v", err)
	}
	sum, err := nodeenv.ProgramHash(job)
	if err != nil {
		t.Fatal(err)
	}
	info := &nodeenv.JoinInfo{Version: 1, Master: "127.0.0.1:1", Job: "c0ffee", Token: strings.Repeat("ab", 32),
		Size: 2, MaxJoin: 4, Program: job, SHA256: sum, Args: []string{"-steps", "3"}}
	if err := nodeenv.WriteJoin(ck, info); err != nil {
		t.Fatal(err)
	}
	err = run([]string{"join", "--program", other, ck}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "is not the job's program") {
		t.Errorf("cape join with another program: %v", err)
	}
	cmd := exec.Command(other, "-steps", "3")
	cmd.Env = append(os.Environ(), nodeenv.Join+"="+ck)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "is not the job's program") {
		t.Errorf("another program with %s: %v\n%s", nodeenv.Join, err, out)
	}
	cmd = exec.Command(job, "-steps", "4")
	cmd.Env = append(os.Environ(), nodeenv.Join+"="+ck)
	out, err = cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "are not the job's") {
		t.Errorf("the job's program with other arguments: %v\n%s", err, out)
	}
	if err := os.Chmod(filepath.Join(ck, nodeenv.JoinFile), 0o644); err != nil {
		t.Fatal(err)
	}
	err = run([]string{"join", ck}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "group and others must have no access") {
		t.Errorf("cape join with a join file others may read: %v", err)
	}
}

// TestJoinerKilled kills joining nodes, one before it is admitted and one
// right after: the job completes with the fault-free output, and the
// second is reported as a lost node whose work was re-executed.
func TestJoinerKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	bin := sharedBuild(t, "./testdata/ckptloop")
	args := []string{"-n", "3000", "-steps", "250", "-pause", "10ms"}
	want, errText, err := capeRun("2", nil, bin, args)
	if err != nil {
		t.Fatalf("fault-free run: %v\n%s", err, errText)
	}
	ck := filepath.Join(t.TempDir(), "ck")
	res := startJob(t, bin, ck, args)
	for _, until := range []string{"join: replaying regions", "joined the job"} {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), nodeenv.Join+"="+ck)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill() })
		var seen strings.Builder
		sc := bufio.NewScanner(stderr)
		for sc.Scan() && !strings.Contains(sc.Text(), until) {
			seen.WriteString(sc.Text() + "\n")
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, stderr)
		_ = cmd.Wait()
		if sc.Err() != nil || !strings.Contains(sc.Text(), until) {
			t.Fatalf("the joining node never printed %q:\n%s", until, seen.String())
		}
	}
	r := <-res
	if r.err != nil {
		t.Fatalf("the job with killed joining nodes: %v\n%s", r.err, r.errText)
	}
	if r.out != want {
		t.Fatalf("the job printed\n%s\nthe fault-free run printed\n%s", r.out, want)
	}
	if !regexp.MustCompile(`lost node \d+ at `).MatchString(r.errText) {
		t.Errorf("the master does not report the joined node's loss:\n%s", r.errText)
	}
}
