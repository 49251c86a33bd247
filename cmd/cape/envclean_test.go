package main

import "testing"

// TestEnvironmentClean: the program's environment holds none of the
// launcher's variables on any node (a CAPE program it starts as a child
// took itself for a node of the job and failed).
func TestEnvironmentClean(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	bin := sharedBuild(t, "./testdata/envclean")
	for _, n := range []string{"1", "3"} {
		out, errText, err := capeRun(n, nil, bin, nil)
		if err != nil || out != "3969\n" {
			t.Fatalf("-n %s: %v, printed %q:\n%s", n, err, out, errText)
		}
	}
}
