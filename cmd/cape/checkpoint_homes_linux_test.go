package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cape-go/cape/internal/ckptlog"
)

// TestCheckpointUnderHomes runs a checkpointed job with distributed homes
// (--transfer homes), whose log holds images taken at the program's
// //cape:checkpoint point, and crashes its master (CAPE_FAULT) at several
// regions: a restart from the log on 2, 3 and 1 nodes prints what the
// fault-free run prints, resuming from an image once one was written.
func TestCheckpointUnderHomes(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	needLazyPages(t)
	bin := sharedBuild(t, "./testdata/ckpthomes")
	args := []string{"-steps", "12", "-pause", "20ms"}
	want := goRunOutput(t, "./testdata/ckpthomes", args, nil)
	flags := func(ck string) []string {
		return []string{"--transfer", "homes", "--checkpoint", ck, "--checkpoint-every", "0"}
	}

	ck := filepath.Join(t.TempDir(), "ck")
	out, errText, err := capeRun("3", flags(ck), bin, args)
	if err != nil || out != want {
		t.Fatalf("fault-free checkpointed run: %v\nprinted\n%s\nwant\n%s\nstderr:\n%s", err, out, want, errText)
	}
	if !strings.Contains(errText, "under distributed homes") || strings.Contains(errText, "lazy transfer") {
		t.Fatalf("the job did not say its log holds images under distributed homes:\n%s", errText)
	}
	d, err := ckptlog.OpenDir(ck)
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.Scan(1 << 30)
	if err != nil || len(s.Entries) != 1 || s.Entries[0].Kind != ckptlog.KindImage || s.Last() != 22 {
		t.Fatalf("the log holds %+v (%v), want one image, after region #22 (the last step's point)", s, err)
	}

	restored := 0
	for _, k := range []int{1, 12, 20} {
		ck := filepath.Join(t.TempDir(), "ck")
		t.Setenv("CAPE_FAULT", fmt.Sprintf("node=0,at=create,do=crash,region=%d", k))
		_, errText, err := capeRun("3", flags(ck), bin, args)
		if err == nil || !strings.Contains(errText, "injected fault") {
			t.Fatalf("the master did not crash at region %d: %v\n%s", k, err, errText)
		}
		os.Unsetenv("CAPE_FAULT")
		for _, n := range []string{"2", "3", "1"} {
			ck := copyDir(t, ck)
			out, errText, err := capeRun(n, []string{"--checkpoint", ck, "--restart"}, bin, args)
			if err != nil || out != want {
				t.Fatalf("crash in region %d, restart on %s nodes: %v\nprinted\n%s\nwant\n%s\nstderr:\n%s", k, n, err, out, want, errText)
			}
			if n == "2" && strings.Contains(errText, "restoring the image of point") {
				restored++
			}
		}
	}
	if restored < 2 {
		t.Fatalf("%d of the restarts after crashes in regions 12 and 20 restored an image, want both", restored)
	}
}
