package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cape-go/cape/internal/ckptlog"
)

// TestCheckpointDefaultBound runs the stencil (a 512×512 grid: 4 MiB of
// arena, about 400 KB logged per region) for 200 iterations with
// --checkpoint and no --checkpoint-max: unbounded, the log reaches about
// 82 MB (--checkpoint-max 1G: 82,364,072 bytes); by default it stays under
// 64 MiB (four times the arena in use, at least 64 MiB), compacted at the
// example's //cape:checkpoint point, and the output is the run's without a
// log, also after a master crash and a restart on 3 nodes. A program
// without a point (ckptloop) is told at the start how its log will be
// bounded.
func TestCheckpointDefaultBound(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	const bound = 64 << 20
	bin := sharedBuild(t, "../../examples/stencil")
	args := []string{"-n", "512", "-iters", "200"}
	want, errText, err := capeRun("2", nil, bin, args)
	if err != nil {
		t.Fatalf("run without a log: %v\n%s", err, errText)
	}
	ck := filepath.Join(t.TempDir(), "ck")
	out, errText, err := capeRun("2", []string{"--stats", "--checkpoint", ck}, bin, args)
	if err != nil || out != want {
		t.Fatalf("checkpointed run: %v, printed\n%s\nwant\n%s\n%s", err, out, want, errText)
	}
	compactions, peak := checkpointStats(t, errText)
	if peak > bound || compactions == 0 {
		t.Fatalf("%d compactions, peak %d bytes on disk: want some, under the default bound of %d", compactions, peak, bound)
	}
	if fi, err := os.Stat(filepath.Join(ck, ckptlog.LogName)); err != nil {
		t.Fatalf("log after the run: %v", err)
	} else if fi.Size() > bound {
		t.Fatalf("log after the run: %d bytes, want at most %d", fi.Size(), bound)
	}
	if strings.Contains(errText, "reached no //cape:checkpoint point") {
		t.Fatalf("a program with a point was told it has none:\n%s", errText)
	}
	t.Logf("200 regions: %d compactions, peak %d bytes", compactions, peak)

	// A master crash late in the run: the restart restores an image and
	// prints the run's output; its program has a point, and is not told
	// otherwise. A compaction is written off the program's path (the image,
	// then a sync): a crash while it is in flight leaves the log before it,
	// from which a restart replays every region logged, which is right but
	// restores no image. So the crash is tried again, at most 3 times, until
	// a restart restores one; every restart must print the run's output.
	restored := false
	for try := 0; try < 3 && !restored; try++ {
		ck = filepath.Join(t.TempDir(), "ck")
		t.Setenv("CAPE_FAULT", "node=0,at=create,do=crash,region=199")
		if _, errText, err := capeRun("2", []string{"--checkpoint", ck}, bin, args); err == nil {
			t.Fatalf("the master did not crash:\n%s", errText)
		}
		os.Unsetenv("CAPE_FAULT")
		out, errText, err = capeRun("3", []string{"--checkpoint", ck, "--restart"}, bin, args)
		if err != nil || out != want {
			t.Fatalf("restart: %v, printed\n%s\nwant\n%s\n%s", err, out, want, errText)
		}
		if strings.Contains(errText, "reached no //cape:checkpoint point") {
			t.Fatalf("a program with a point was told it has none:\n%s", errText)
		}
		restored = strings.Contains(errText, "restart: restoring the image of point main.go:48:3")
		if !restored {
			t.Logf("try %d: the restart restored no image (the crash came before the compaction was written):\n%s", try+1, errText)
		}
	}
	if !restored {
		t.Fatal("no restart of 3 restored an image: compactions are not written")
	}

	bin = sharedBuild(t, "./testdata/ckptloop")
	ck = filepath.Join(t.TempDir(), "ck")
	_, errText, err = capeRun("2", []string{"--checkpoint", ck}, bin, []string{"-n", "500", "-steps", "2"})
	if err != nil {
		t.Fatalf("ckptloop: %v\n%s", err, errText)
	}
	if !strings.Contains(errText, "the log is bounded to 67108864 bytes") || !strings.Contains(errText, "if it reaches none, logging stops at the bound, and a restart replays the regions logged, then computes the rest") {
		t.Fatalf("a program without a point was not told how its log is bounded:\n%s", errText)
	}
}

// TestRestartRefusesLazy: a checkpointed job may use the lazy transfer, but
// a restart sends replayed regions whole, so --restart --transfer lazy is a
// usage error, before anything is built or run.
func TestRestartRefusesLazy(t *testing.T) {
	ck := filepath.Join(t.TempDir(), "ck")
	_, errText, err := capeRun("2", []string{"--checkpoint", ck, "--restart", "--transfer", "lazy"}, "./testdata/ckptloop", nil)
	if err == nil || !strings.Contains(err.Error()+errText, "--restart needs the eager transfer") {
		t.Fatalf("--restart --transfer lazy: %v\n%s", err, errText)
	}
	if _, err := os.Stat(ck); err == nil {
		t.Fatal("the refused restart created its checkpoint directory")
	}
}
