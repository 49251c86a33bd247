package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRegionOutput runs a program that prints from inside parallel regions
// (dynamic, block-cyclic, static, sections, guided) and requires exactly
// what go run prints, in order: on 2 and 3 nodes, under --verify (whose
// sequential re-run must not print again), after a slave's loss (the master
// re-runs its units and prints their output), and after a restart from the
// log (the replayed regions print their logged output).
func TestRegionOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := "./testdata/printloop"
	args := []string{"-steps", "3"}
	want := goRun(t, dir, args...)
	if strings.Count(want, "\n") < 100 {
		t.Fatalf("go run printed too little to test:\n%s", want)
	}
	bin := sharedBuild(t, dir)
	check := func(what, nodes string, flags []string) string {
		t.Helper()
		out, errText, err := capeRun(nodes, flags, bin, args)
		if err != nil {
			t.Fatalf("%s: %v\n%s", what, err, errText)
		}
		if out != want {
			t.Fatalf("%s printed\n%s\ngo run printed\n%s\nstderr:\n%s", what, out, want, errText)
		}
		return errText
	}
	check("2 nodes", "2", nil)
	check("3 nodes", "3", nil)
	check("--verify", "2", []string{"--verify"})

	t.Setenv("CAPE_FAULT", "node=2,at=create,do=crash,region=4")
	if errText := check("3 nodes losing node 2", "3", nil); !strings.Contains(errText, "re-ran") {
		t.Fatalf("node 2 was not lost and re-run:\n%s", errText)
	}

	ck := filepath.Join(t.TempDir(), "ck")
	t.Setenv("CAPE_FAULT", "node=0,at=create,do=crash,region=7")
	if _, errText, err := capeRun("2", []string{"--checkpoint", ck}, bin, args); err == nil || !strings.Contains(errText, "injected fault") {
		t.Fatalf("the master did not crash: %v\n%s", err, errText)
	}
	os.Unsetenv("CAPE_FAULT")
	k := restartMatches(t, bin, ck, want, args, "2", "3")
	if k < 1 {
		t.Fatalf("the restart replayed %d regions", k)
	}
	t.Logf("the restart replayed %d regions", k)
}
