package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestStdinReachesEveryNode runs a program that reads its standard input
// between regions: cape run must print what go run prints with the same
// input, from a file and from a pipe (the master streams it to the
// slaves), and with no input (every node reads none).
func TestStdinReachesEveryNode(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := "./testdata/stdinsum"
	var in strings.Builder
	for i := range 40000 {
		fmt.Fprintf(&in, "%d\n", i*7919%100003)
	}
	file := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(file, []byte(in.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	goRun := func(stdin *os.File) string {
		cmd := exec.Command("go", "run", ".")
		cmd.Dir, cmd.Stdin = dir, stdin
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go run: %v", err)
		}
		return string(out)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := goRun(f)
	if !strings.HasPrefix(want, "batches 80 ") {
		t.Fatalf("go run read too little: %s", want)
	}
	bin := buildOnce(t, dir)
	withStdin := func(what string, stdin *os.File, nodes string, want string) {
		t.Helper()
		old := os.Stdin
		os.Stdin = stdin
		out, errText, err := capeRun(nodes, nil, bin, nil)
		os.Stdin = old
		if err != nil {
			t.Fatalf("%s: %v\n%s", what, err, errText)
		}
		if out != want {
			t.Fatalf("%s printed %q, go run printed %q\nstderr:\n%s", what, out, want, errText)
		}
	}
	for _, nodes := range []string{"2", "3"} {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		withStdin("a file on "+nodes+" nodes", f, nodes, want)
		f.Close()
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		w.WriteString(in.String())
		w.Close()
	}()
	withStdin("a pipe on 3 nodes", r, "3", want)
	r.Close()

	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	withStdin("no input", null, "2", goRun(null))
}
