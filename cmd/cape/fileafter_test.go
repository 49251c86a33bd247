package main

import (
	"os"
	"testing"
)

// TestFileAfterLastRegion: a file every node rewrites in the loop of
// regions, read by the master after the loop, holds what go run leaves
// there under every transfer: the master waits for the slaves to leave
// after the last region (under eager and lazy transfer it read the file
// empty in 4 to 6 runs of 15).
func TestFileAfterLastRegion(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	want := goRunOutput(t, "./testdata/fileafter", nil, nil)
	bin := sharedBuild(t, "./testdata/fileafter")
	t.Chdir(t.TempDir())
	for _, transfer := range []string{"eager", "lazy", "auto"} {
		for range 4 {
			os.Remove("state.txt")
			out, errText, err := capeRun("3", []string{"--transfer", transfer}, bin, nil)
			if err != nil || out != want {
				t.Fatalf("--transfer %s: %v, printed %q, want %q\n%s", transfer, err, out, want, errText)
			}
		}
	}
}
