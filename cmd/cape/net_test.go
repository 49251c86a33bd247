package main

import (
	"crypto/rand"
	"io"
	"net"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cape-go/cape/internal/ckptlog"
	"github.com/cape-go/cape/internal/nodeenv"
)

// refusedSummaryRE matches the master's summary of the refused connections
// it did not print one by one.
var refusedSummaryRE = regexp.MustCompile(`cape: node 0: ([0-9,]+) more connections? refused in the last `)

// TestHardeningRefusedFlood opens many connections that fail their
// handshake to a checkpointed job's port (which admits joining nodes):
// the job completes with its output, its stderr holds a bounded number of
// lines about them, and those lines account for every connection.
func TestHardeningRefusedFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	bin := sharedBuild(t, "./testdata/ckptloop")
	args := []string{"-n", "3000", "-steps", "300", "-pause", "10ms"}
	want, errText, err := capeRun("2", nil, bin, args)
	if err != nil {
		t.Fatalf("fault-free run: %v\n%s", err, errText)
	}
	ck := filepath.Join(t.TempDir(), "ck")
	res := startJob(t, bin, ck, args)
	info, err := nodeenv.ReadJoin(ck)
	if err != nil {
		t.Fatal(err)
	}
	const conns, workers = 600, 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	var dialErrs []error
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < conns; i += workers {
				if err := badHandshake(info.Master); err != nil {
					mu.Lock()
					dialErrs = append(dialErrs, err)
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	if len(dialErrs) > 0 {
		t.Fatalf("the flood could not connect: %v", dialErrs[0])
	}
	r := <-res
	if r.err != nil {
		t.Fatalf("the job: %v\n%s", r.err, r.errText)
	}
	if r.out != want {
		t.Fatalf("under the flood the job printed\n%s\nthe fault-free run printed\n%s", r.out, want)
	}
	full, summed, lines := 0, 0, 0
	for _, l := range strings.Split(r.errText, "\n") {
		switch m := refusedSummaryRE.FindStringSubmatch(l); {
		case m != nil:
			k, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
			summed += k
			lines++
		case strings.Contains(l, "refused"):
			full++
			lines++
		}
	}
	if lines > 20 {
		t.Errorf("%d lines about %d refused connections on the job's stderr, want at most 20", lines, conns)
	}
	if full+summed != conns {
		t.Errorf("the notices account for %d refused connections (%d printed, %d summarised), want %d:\n%s",
			full+summed, full, summed, conns, r.errText)
	}
}

// badHandshake connects to addr, sends bytes that are no handshake, and
// waits for the other end to close the connection.
func badHandshake(addr string) error {
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return err
	}
	defer nc.Close()
	junk := make([]byte, 64)
	_, _ = rand.Read(junk)
	copy(junk, "NOPE")
	if _, err := nc.Write(junk); err != nil {
		return err
	}
	_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, _ = io.Copy(io.Discard, nc)
	return nil
}

// TestSurviveLostStraggler pauses a slave for far longer than the job
// needs: the master declares it lost (a straggler) and completes the job
// without it, and cape run returns with the job's output at once, the
// launcher having stopped the lost node, instead of waiting for it to
// wake.
func TestSurviveLostStraggler(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	const pause = 60 * time.Second
	bin := sharedBuild(t, "../../examples/matmul")
	args := []string{"-n", "600"}
	want, errText, err := capeRun("3", nil, bin, args)
	if err != nil {
		t.Fatalf("fault-free run: %v\n%s", err, errText)
	}
	t.Setenv("CAPE_FAULT", "node=1,at=compute,do=pause,for="+pause.String())
	start := time.Now()
	out, errText, err := capeRun("3", nil, bin, args)
	took := time.Since(start)
	if err != nil {
		t.Fatalf("cape run: %v\n%s", err, errText)
	}
	if firstLine(out) != firstLine(want) {
		t.Errorf("printed %q, the fault-free run %q", out, want)
	}
	if !strings.Contains(errText, "cape: master: lost node 1 ") || !strings.Contains(errText, "was declared lost by the master and stopped") {
		t.Errorf("node 1 was not declared lost and stopped:\n%s", errText)
	}
	// Not a timing of the job: whether cape run waited for the pause.
	if took >= pause/2 {
		t.Errorf("cape run returned after %v: it waited for the lost node's %v pause\n%s", took, pause, errText)
	}
}

// firstLine is s up to its first newline (matmul's second line is a time).
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// TestJoinAfterCompaction joins a node to a job whose bounded log
// (--checkpoint-max) has been compacted into an image of its checkpoint
// point: the node computes up to that point, restores the image from the
// log, follows the log from there and is admitted; or, if the log is
// compacted past it once it asked to be admitted, it ends at once saying
// so. Either way it never waits silently for the job's end, and the job's
// output is the fault-free run's.
func TestJoinAfterCompaction(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	bin := sharedBuild(t, "../../examples/stencil")
	args := []string{"-n", "120", "-iters", "6000"}
	want, errText, err := capeRun("2", nil, bin, args)
	if err != nil {
		t.Fatalf("fault-free run: %v\n%s", err, errText)
	}
	ck := filepath.Join(t.TempDir(), "ck")
	res := startJob(t, bin, ck, args, "--checkpoint-max", "6M")
	// Wait for the first compaction: the log then starts with an image.
	deadline := time.Now().Add(30 * time.Second)
	for !startsWithImage(ck) {
		if time.Now().After(deadline) {
			t.Fatal("the log was not compacted in 30s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	var jerr strings.Builder
	joinErr := run([]string{"join", ck}, io.Discard, &jerr)
	// Whether the job had ended by the time cape join returned: a node
	// told only at the job's end returns after it.
	var r jobResult
	jobEndedFirst := false
	select {
	case r = <-res:
		jobEndedFirst = true
	default:
		r = <-res
	}
	if r.err != nil {
		t.Fatalf("the job: %v\n%s\njoining node:\n%s", r.err, r.errText, jerr.String())
	}
	if r.out != want {
		t.Fatalf("with a node joining, the job printed\n%s\nthe fault-free run printed\n%s", r.out, want)
	}
	switch {
	case joinErr == nil && strings.Contains(jerr.String(), "joined the job"):
		t.Logf("joined after the compaction:\n%s", jerr.String())
	case joinErr != nil && strings.Contains(jerr.String(), "compacted its log past region"):
		if jobEndedFirst {
			t.Errorf("the joining node was told only at the job's end:\n%s", jerr.String())
		}
		t.Logf("refused promptly:\n%s", jerr.String())
	default:
		t.Errorf("cape join: %v, neither admitted nor told why not:\n%s", joinErr, jerr.String())
	}
}

// startsWithImage reports whether the checkpoint log in dir starts with an
// image (it has been compacted).
func startsWithImage(dir string) bool {
	d, err := ckptlog.OpenDir(dir)
	if err != nil {
		return false
	}
	s, err := d.Scan(1 << 30)
	return err == nil && len(s.Entries) > 0 && s.Entries[0].Kind == ckptlog.KindImage
}
