package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cape-go/cape/internal/ckptlog"
)

// ckptloopLog runs testdata/ckptloop (6 regions) checkpointed on nodes
// and returns the program, its arguments, the checkpoint directory, the
// log's scan, the log's path and its bytes.
func ckptloopLog(t *testing.T, nodes string) (bin string, args []string, ck string, s *ckptlog.Scan, name string, b []byte) {
	t.Helper()
	bin = sharedBuild(t, "./testdata/ckptloop")
	args = []string{"-n", "1500", "-steps", "3"}
	ck = filepath.Join(t.TempDir(), "ck")
	if _, errText, err := capeRun(nodes, []string{"--checkpoint", ck}, bin, args); err != nil {
		t.Fatalf("checkpointed run: %v\n%s", err, errText)
	}
	d, err := ckptlog.OpenDir(ck)
	if err != nil {
		t.Fatal(err)
	}
	if s, err = d.Scan(1 << 30); err != nil || s.Last() != 6 {
		t.Fatalf("scan: %+v, %v", s, err)
	}
	name = filepath.Join(ck, ckptlog.LogName)
	if b, err = os.ReadFile(name); err != nil {
		t.Fatal(err)
	}
	return bin, args, ck, s, name, b
}

var replayedRE = regexp.MustCompile(`restart: replaying regions #1 to #(\d+)`)

// replayed returns how many regions a restart's stderr says it replays.
func replayed(t *testing.T, stderr string) int {
	t.Helper()
	if strings.Contains(stderr, "logs no region yet: the job starts from the beginning") {
		return 0
	}
	m := replayedRE.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("the restart does not say what it replays:\n%s", stderr)
	}
	k, _ := strconv.Atoi(m[1])
	return k
}

// copyDir copies the checkpoint directory src (its log and key) to a new
// private one.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "ck")
	if err := os.Mkdir(dst, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{ckptlog.LogName, ckptlog.KeyName} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// restartMatches restarts from a copy of dir on each node count and
// requires the output of the fault-free run; it returns the regions the
// first restart replayed.
func restartMatches(t *testing.T, bin, dir, want string, args []string, nodes ...string) int {
	t.Helper()
	k := -1
	for _, n := range nodes {
		ck := copyDir(t, dir)
		out, errText, err := capeRun(n, []string{"--checkpoint", ck, "--restart"}, bin, args)
		if err != nil {
			t.Fatalf("restart on %s nodes: %v\n%s", n, err, errText)
		}
		if out != want {
			t.Fatalf("restart on %s nodes printed\n%s\nthe fault-free run printed\n%s\nstderr:\n%s", n, out, want, errText)
		}
		if k < 0 {
			k = replayed(t, errText)
		}
	}
	return k
}

// TestRestartAfterMasterCrash kills the master (CAPE_FAULT) at several
// regions of a checkpointed job, then restarts from the log on the same and
// on other node counts: the output must be the fault-free run's.
func TestRestartAfterMasterCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	for _, p := range []struct {
		dir     string
		args    []string
		regions []int
	}{
		{"../../examples/stencil", []string{"-n", "48", "-iters", "12"}, []int{1, 6, 12}},
		// Reductions, a lastprivate value, a dynamic schedule, output
		// between regions: two regions per step.
		{"./testdata/ckptloop", []string{"-n", "1500", "-steps", "8"}, []int{2, 9, 16}},
	} {
		t.Run(filepath.Base(p.dir), func(t *testing.T) {
			bin := sharedBuild(t, p.dir)
			want, errText, err := capeRun("2", nil, bin, p.args)
			if err != nil {
				t.Fatalf("fault-free run: %v\n%s", err, errText)
			}
			anyReplayed := false
			for _, k := range p.regions {
				ck := filepath.Join(t.TempDir(), "ck")
				t.Setenv("CAPE_FAULT", fmt.Sprintf("node=0,at=create,do=crash,region=%d", k))
				_, errText, err := capeRun("2", []string{"--checkpoint", ck}, bin, p.args)
				if err == nil || !strings.Contains(errText, "injected fault") {
					t.Fatalf("the master did not crash at region %d: %v\n%s", k, err, errText)
				}
				os.Unsetenv("CAPE_FAULT")
				got := restartMatches(t, bin, ck, want, p.args, "2", "3", "1")
				if got > k-1 {
					t.Fatalf("crashed in region %d, but the restart replayed %d regions", k, got)
				}
				anyReplayed = anyReplayed || got > 0
				t.Logf("crash in region %d: the restart replayed %d regions", k, got)
			}
			if !anyReplayed {
				t.Fatal("no restart replayed any region")
			}
		})
	}
}

// TestRestartAfterKill9 kills the master with SIGKILL from outside at a
// moment the log is being written, then restarts on three nodes.
func TestRestartAfterKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	bin := sharedBuild(t, "./testdata/ckptloop")
	args := []string{"-n", "20000", "-steps", "40", "-pause", "20ms"}
	want, errText, err := capeRun("2", nil, bin, args)
	if err != nil {
		t.Fatalf("fault-free run: %v\n%s", err, errText)
	}
	ck := filepath.Join(t.TempDir(), "ck")
	var stdout, stderr lockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(append([]string{"run", "-n", "2", "--checkpoint", ck, bin, "--"}, args...), &stdout, &stderr)
	}()
	pidRE := regexp.MustCompile(`(?m)^pid (\d+)$`)
	deadline := time.Now().Add(60 * time.Second)
	killed := false
	for !killed {
		if time.Now().After(deadline) {
			t.Fatalf("the job never logged 20 regions:\n%s", stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
		m := pidRE.FindStringSubmatch(stderr.String())
		d, err := ckptlog.OpenDir(ck)
		if m == nil || err != nil {
			continue
		}
		if s, err := d.Scan(1 << 30); err == nil && s.Last() >= 20 {
			pid, _ := strconv.Atoi(m[1])
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			killed = true
		}
	}
	if err := <-done; err == nil {
		t.Fatalf("the job survived its master's SIGKILL:\n%s", stderr.String())
	}
	got := restartMatches(t, bin, ck, want, args, "3")
	if got < 20 || got >= 80 {
		t.Fatalf("the restart replayed %d regions, want at least the 20 logged before the kill", got)
	}
	t.Logf("killed after %d logged regions of 80; the restart replayed %d", 20, got)
}

// TestRestartDropsTornTail tears the log's last record (a crash during a
// write) and adds garbage: the restart drops the tail, says so, and is
// exact.
func TestRestartDropsTornTail(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	bin := sharedBuild(t, "./testdata/ckptloop")
	args := []string{"-n", "1500", "-steps", "6"}
	want, errText, err := capeRun("2", nil, bin, args)
	if err != nil {
		t.Fatalf("fault-free run: %v\n%s", err, errText)
	}
	ck := filepath.Join(t.TempDir(), "ck")
	if _, errText, err := capeRun("2", []string{"--checkpoint", ck}, bin, args); err != nil {
		t.Fatalf("checkpointed run: %v\n%s", err, errText)
	}
	d, err := ckptlog.OpenDir(ck)
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.Scan(1 << 30)
	if err != nil || s.Last() != 12 {
		t.Fatalf("scan: %+v, %v", s, err)
	}
	name := filepath.Join(ck, ckptlog.LogName)
	b, _ := os.ReadFile(name)
	last := s.Entries[len(s.Entries)-1]
	cases := map[string][]byte{
		"cut in the last record":    b[:last.Off+last.Len/2],
		"cut in the last head":      b[:last.Off-7],
		"a flipped byte":            append(b[:last.Off+3:last.Off+3], append([]byte{b[last.Off+3] ^ 1}, b[last.Off+4:]...)...),
		"garbage after the records": append(append([]byte(nil), b...), "CAPL\x01\x00\x02\x00garbage"...),
	}
	for name, log := range cases {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			dir := copyDir(t, ck)
			if err := os.WriteFile(filepath.Join(dir, ckptlog.LogName), log, 0o600); err != nil {
				t.Fatal(err)
			}
			out, errText, err := capeRun("3", []string{"--checkpoint", dir, "--restart"}, bin, args)
			if err != nil || out != want {
				t.Fatalf("restart: %v, printed\n%s\nwant\n%s\nstderr:\n%s", err, out, want, errText)
			}
			if !strings.Contains(errText, "dropped a torn tail") {
				t.Errorf("the restart does not say it dropped the torn tail:\n%s", errText)
			}
			wantK := 11
			if strings.HasPrefix(name, "garbage") {
				wantK = 12
			}
			if k := replayed(t, errText); k != wantK {
				t.Errorf("replayed %d regions, want %d", k, wantK)
			}
		})
	}
}

// TestRestartRefusesNondeterminism restarts a program that stores the
// clock in shared memory between its regions: the restart is refused with
// an error naming the second region.
func TestRestartRefusesNondeterminism(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	bin := sharedBuild(t, "./testdata/clockbetween")
	ck := filepath.Join(t.TempDir(), "ck")
	if _, errText, err := capeRun("2", []string{"--checkpoint", ck}, bin, nil); err != nil {
		t.Fatalf("checkpointed run: %v\n%s", err, errText)
	}
	_, errText, err := capeRun("2", []string{"--checkpoint", ck, "--restart"}, bin, nil)
	if err == nil {
		t.Fatal("the restart of a program that reads the clock between regions was accepted")
	}
	if want := "region main.go:19:2 (#2): restart: the arena at the region's entry differs"; !strings.Contains(errText, want) ||
		!strings.Contains(errText, "not deterministic outside its parallel regions") {
		t.Fatalf("the refusal does not name the region (%q):\n%s", want, errText)
	}
}

// TestCheckpointUsage checks the flags' errors and the directory's rules.
func TestCheckpointUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--restart", "x"}, "--restart needs --checkpoint"},
		{[]string{"run", "--checkpoint-max", "1G", "x"}, "--checkpoint-max needs --checkpoint"},
		{[]string{"run", "--checkpoint", "/tmp/x", "--checkpoint-max", "lots", "x"}, `--checkpoint-max "lots"`},
		{[]string{"run", "--checkpoint-every", "1m", "x"}, "--checkpoint-every needs --checkpoint"},
		{[]string{"run", "--checkpoint", "/tmp/x", "--checkpoint-every", "-5s", "x"}, `--checkpoint-every "-5s"`},
		{[]string{"run", "--checkpoint", "/tmp/x", "--checkpoint-every", "often", "x"}, `--checkpoint-every "often"`},
	} {
		err := run(c.args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("cape %s: %v, want an error containing %q", strings.Join(c.args, " "), err, c.want)
		}
	}
	if testing.Short() {
		return
	}
	bin := sharedBuild(t, "./testdata/clockbetween")
	ck := filepath.Join(t.TempDir(), "ck")
	if _, errText, err := capeRun("1", []string{"--checkpoint", ck}, bin, nil); err != nil {
		t.Fatalf("checkpointed run: %v\n%s", err, errText)
	}
	if fi, err := os.Stat(ck); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the checkpoint directory has mode %v (%v), want 0700", fi.Mode(), err)
	}
	if fi, err := os.Stat(filepath.Join(ck, ckptlog.LogName)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the log has mode %v (%v), want 0600", fi.Mode(), err)
	}
	_, errText, err := capeRun("1", []string{"--checkpoint", ck}, bin, nil)
	if err == nil || !strings.Contains(errText, "already holds the log of a run: add --restart") {
		t.Fatalf("a second run into the same directory: %v\n%s", err, errText)
	}
	shared := filepath.Join(t.TempDir(), "shared")
	os.Mkdir(shared, 0o755)
	os.Chmod(shared, 0o755)
	_, errText, err = capeRun("1", []string{"--checkpoint", shared}, bin, nil)
	if err == nil || !strings.Contains(err.Error(), "group and others must have no access") {
		t.Fatalf("a directory others may read: %v\n%s", err, errText)
	}
	// Both are usage errors, found before the nodes start.
	var ue *usageError
	if !errors.As(err, &ue) || strings.Contains(errText, "master") {
		t.Fatalf("a directory others may read: %v, want a usage error from cape run itself\n%s", err, errText)
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	_, errText, err = capeRun("1", []string{"--checkpoint", file}, bin, nil)
	if err == nil || !strings.Contains(err.Error(), "is a file, not a directory") {
		t.Fatalf("a file as the checkpoint directory: %v\n%s", err, errText)
	}
	_, errText, err = capeRun("1", []string{"--checkpoint", filepath.Join(file+"-none", "ck")}, bin, nil)
	if err == nil || !strings.Contains(err.Error(), "does not exist") || !errors.As(err, &ue) {
		t.Fatalf("a checkpoint directory below one that does not exist: %v\n%s", err, errText)
	}
}

var peakRE = regexp.MustCompile(`cape: checkpoint: (\d+) regions logged, (\d+) compactions, (\d+) bytes on disk \(peak (\d+)\)`)

// checkpointStats returns the compactions and the peak bytes on disk that
// a --stats run reports.
func checkpointStats(t *testing.T, stderr string) (compactions, peak int64) {
	t.Helper()
	m := peakRE.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no checkpoint statistics in:\n%s", stderr)
	}
	compactions, _ = strconv.ParseInt(m[2], 10, 64)
	peak, _ = strconv.ParseInt(m[4], 10, 64)
	return compactions, peak
}

// TestCheckpointBound runs 2,000 regions under --checkpoint-max: with a
// //cape:checkpoint point in the time loop (the stencil example, 2,000
// iterations) the log is compacted into images and stays under the bound,
// and a master crash late in the run restarts from the newest image on
// three nodes, exactly; without a point (ckptloop, two regions per step)
// logging stops at the bound and the restart replays what was logged,
// exactly.
func TestCheckpointBound(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	const bound = 1 << 20
	for _, p := range []struct {
		dir         string
		args        []string
		compactions bool
	}{
		{"../../examples/stencil", []string{"-n", "64", "-iters", "2000"}, true},
		{"./testdata/ckptloop", []string{"-n", "500", "-steps", "1000"}, false},
	} {
		t.Run(filepath.Base(p.dir), func(t *testing.T) {
			bin := sharedBuild(t, p.dir)
			want, errText, err := capeRun("2", nil, bin, p.args)
			if err != nil {
				t.Fatalf("fault-free run: %v\n%s", err, errText)
			}
			flags := []string{"--stats", "--checkpoint-max", strconv.Itoa(bound)}
			ck := filepath.Join(t.TempDir(), "ck")
			out, errText, err := capeRun("2", append(flags, "--checkpoint", ck), bin, p.args)
			if err != nil || out != want {
				t.Fatalf("checkpointed run: %v, printed\n%s\nwant\n%s\n%s", err, out, want, errText)
			}
			compactions, peak := checkpointStats(t, errText)
			if peak > bound {
				t.Fatalf("peak %d bytes on disk, over the bound of %d", peak, bound)
			}
			if p.compactions != (compactions > 0) {
				t.Fatalf("%d compactions", compactions)
			}
			if !p.compactions && !strings.Contains(errText, "would pass --checkpoint-max") {
				t.Fatalf("logging did not stop at the bound:\n%s", errText)
			}
			t.Logf("2,000 regions: %d compactions, peak %d bytes on disk, bound %d", compactions, peak, bound)

			ck = filepath.Join(t.TempDir(), "ck")
			t.Setenv("CAPE_FAULT", "node=0,at=create,do=crash,region=1500")
			if _, errText, err := capeRun("2", append(flags, "--checkpoint", ck), bin, p.args); err == nil {
				t.Fatalf("the master did not crash:\n%s", errText)
			}
			os.Unsetenv("CAPE_FAULT")
			fi, err := os.Stat(filepath.Join(ck, ckptlog.LogName))
			if err != nil || fi.Size() > bound {
				t.Fatalf("log after the crash: %v bytes, %v", fi.Size(), err)
			}
			out, errText, err = capeRun("3", append(flags, "--checkpoint", ck, "--restart"), bin, p.args)
			if err != nil || out != want {
				t.Fatalf("restart: %v, printed\n%s\nwant\n%s\n%s", err, out, want, errText)
			}
			if p.compactions && !strings.Contains(errText, "restart: restoring the image of point main.go:48:3") {
				t.Fatalf("the restart did not restore an image:\n%s", errText)
			}
			if _, peak := checkpointStats(t, errText); peak > bound {
				t.Fatalf("restart: peak %d bytes on disk, over the bound of %d", peak, bound)
			}
		})
	}
}

// TestRestartChecksConsistencyCounts rewrites one record of a log, with a
// valid checksum, so that its counts say a node received no merged message:
// the restart refuses it, naming the region, before injecting anything.
func TestRestartChecksConsistencyCounts(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	bin, args, ck, s, name, b := ckptloopLog(t, "3")
	e := s.Entries[3] // region #4
	rec, err := ckptlog.ParseRegion(b[e.Off : e.Off+e.Len])
	if err != nil {
		t.Fatal(err)
	}
	rec.Nodes[2].Recvd = 0
	d, err := ckptlog.OpenDir(ck) // its key seals the rewritten frame
	if err != nil {
		t.Fatal(err)
	}
	out := append([]byte(nil), b[:e.Off-ckptlog.FrameHead]...)
	out = d.AppendFrame(out, ckptlog.KindRegion, ckptlog.AppendRegion(nil, rec))
	out = append(out, b[e.Off+e.Len:]...)
	if err := os.WriteFile(name, out, 0o600); err != nil {
		t.Fatal(err)
	}
	_, errText, err := capeRun("2", []string{"--checkpoint", ck, "--restart"}, bin, args)
	if err == nil || !strings.Contains(errText, "(#4): restart: the log's record: consistency counts: node 2 sent") {
		t.Fatalf("a record whose counts say node 2 received nothing was replayed: %v\n%s", err, errText)
	}
}

// TestRestartRotatingBuffers restarts README's time-stepping idiom (`next
// := make(...)`, `u = next`, with a second buffer made each step, and a
// grid's rows swapped each step, named in the point as [][]float64, and a
// table of a type not allocated before, made at the sixth pass and written
// by sequential code only) from an image at its //cape:checkpoint point:
// the restart reaches the point with the buffers elsewhere than the saved
// run had them (it was refused so, "the arena's allocations differ"), and
// before the table exists; it adopts the image's allocations and
// prints what go run prints, on 1, 2 and 3 nodes, with each transfer that
// logs regions.
func TestRestartRotatingBuffers(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	bin := sharedBuild(t, "./testdata/ckptnext")
	want := goRunOutput(t, "./testdata/ckptnext", nil, nil)
	for _, transfer := range []string{"auto", "eager"} {
		flags := []string{"--checkpoint-max", "65536", "--transfer", transfer}
		for _, k := range []int{40, 90} {
			ck := filepath.Join(t.TempDir(), "ck")
			t.Setenv("CAPE_FAULT", fmt.Sprintf("node=0,at=create,do=crash,region=%d", k))
			if _, errText, err := capeRun("2", append(flags, "--checkpoint", ck), bin, nil); err == nil {
				t.Fatalf("the master did not crash in region %d:\n%s", k, errText)
			}
			os.Unsetenv("CAPE_FAULT")
			restored := false
			for _, n := range []string{"1", "2", "3"} {
				ck := copyDir(t, ck)
				out, errText, err := capeRun(n, []string{"--checkpoint", ck, "--restart"}, bin, nil)
				if err != nil || out != want {
					t.Fatalf("%s, crash in region %d, restart on %s nodes: %v\nprinted %q, want %q\n%s", transfer, k, n, err, out, want, errText)
				}
				restored = restored || strings.Contains(errText, "restoring the image of point main.go:")
			}
			if !restored {
				t.Fatalf("%s, crash in region %d: no restart restored an image", transfer, k)
			}
		}
	}
}

// TestRestartRefusesAnotherRun: a restart from a compacted log (an image,
// no region records before it) with other arguments, or with other input
// read before the first region, is refused; it would restore the logged
// run's state and print that run's results for this one's. With the same
// arguments and input it gives the fault-free output, on other node counts.
func TestRestartRefusesAnotherRun(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	bin := sharedBuild(t, "./testdata/ckptinput")
	input := func(s string) *os.File {
		name := filepath.Join(t.TempDir(), "in")
		if err := os.WriteFile(name, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	args := []string{"-n", "48", "-iters", "300"}
	flags := []string{"--checkpoint-max", "256K"}
	ck := filepath.Join(t.TempDir(), "ck")
	want, errText, err := capeRunStdin(input("100\n"), "2", append(flags, "--checkpoint", ck), bin, args)
	if err != nil {
		t.Fatalf("checkpointed run: %v\n%s", err, errText)
	}
	other, _, err := capeRunStdin(input("50\n"), "2", nil, bin, args)
	if err != nil || other == want {
		t.Fatalf("the run with other input printed %q (%v), the logged run %q", other, err, want)
	}
	for _, c := range []struct {
		what, in string
		args     []string
		refusal  string
	}{
		{"other arguments", "100\n", []string{"-n", "40", "-iters", "300"}, "the log was written by a run of the program with other arguments"},
		{"other input", "50\n", args, "the arena where the program first reached a region or a checkpoint point differs from the logged run's"},
	} {
		_, errText, err := capeRunStdin(input(c.in), "3", append(flags, "--checkpoint", copyDir(t, ck), "--restart"), bin, c.args)
		if err == nil || !strings.Contains(errText, c.refusal) {
			t.Errorf("a restart with %s: %v; want a refusal saying %q:\n%s", c.what, err, c.refusal, errText)
		}
	}
	for _, n := range []string{"1", "3"} {
		out, errText, err := capeRunStdin(input("100\n"), n, append(flags, "--checkpoint", copyDir(t, ck), "--restart"), bin, args)
		if err != nil || out != want || !strings.Contains(errText, "restoring the image of point main.go:28:3") {
			t.Fatalf("a restart on %s nodes with the same arguments and input: %v, printed %q, want %q:\n%s", n, err, out, want, errText)
		}
	}
}
