package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cape-go/cape/internal/launch"
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
	in, file, want := stdinsumInput(t)
	if !strings.HasPrefix(want, "batches 80 ") {
		t.Fatalf("go run read too little: %s", want)
	}
	bin := sharedBuild(t, dir)
	withStdin := func(what string, stdin *os.File, nodes string, want string) {
		t.Helper()
		out, errText, err := capeRunStdin(stdin, nodes, nil, bin, nil)
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
		w.WriteString(in)
		w.Close()
	}()
	withStdin("a pipe on 3 nodes", r, "3", want)
	r.Close()

	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	withStdin("no input", null, "2", goRunOutput(t, dir, nil, nil))
}

// TestStdinCutStream resets the master's input connection to node 1 in
// the middle of the input (CAPE_FAULT at=stdin,do=cut: the master closes
// the socket with a reset, as a network cut or ss -K would), while the
// input's second half is not written yet. Node 1 must never take the cut
// for the end of its input: with --max-lost 0 the job fails naming node 1
// and its standard input stream; with the default policy node 1 is lost
// and the job prints what go run prints. A different output with exit 0
// is the failure this guards against (before the fix: a short input, a
// wrong sum, exit 0).
func TestStdinCutStream(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := "./testdata/stdinsum"
	in, _, wantOut := stdinsumInput(t)
	bin := sharedBuild(t, dir)
	t.Setenv("CAPE_FAULT", "node=0,at=stdin,do=cut,after=300ms")
	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{"no loss allowed", []string{"--max-lost", "0"}},
		{"losses survived", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			go func() {
				defer w.Close()
				half := len(in) / 2
				w.WriteString(in[:half])
				time.Sleep(1500 * time.Millisecond) // the cut comes while the rest is not written
				w.WriteString(in[half:])
			}()
			out, errText, err := capeRunStdin(r, "2", tc.flags, bin, nil)
			if err == nil {
				if out != wantOut {
					t.Fatalf("a cut input stream printed %q with exit 0, go run printed %q\nstderr:\n%s", out, wantOut, errText)
				}
				if tc.flags != nil {
					t.Fatalf("the job survived a cut input stream with --max-lost 0\nstderr:\n%s", errText)
				}
				if !strings.Contains(errText, "node 1: standard input stream from the master cut after") {
					t.Fatalf("node 1 does not report its cut input:\n%s", errText)
				}
				return
			}
			var ee *launch.ExitError
			if tc.flags == nil || !errors.As(err, &ee) || ee.Code == 0 {
				t.Fatalf("cape run: %v\nstderr:\n%s", err, errText)
			}
			if !strings.Contains(err.Error(), "node 1") || !strings.Contains(errText, "standard input stream") {
				t.Fatalf("the job failed with %q, want it to name node 1 and its standard input stream\nstderr:\n%s", err, errText)
			}
		})
	}
}

// stdinsumInput writes the input the testdata/stdinsum tests feed (40,000
// numbers, one a line) to a file, and returns the input, the file and what
// go run of testdata/stdinsum prints reading it.
func stdinsumInput(t *testing.T) (in, file, want string) {
	t.Helper()
	var b strings.Builder
	for i := range 40000 {
		fmt.Fprintf(&b, "%d\n", i*7919%100003)
	}
	file = filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return b.String(), file, goRunOutput(t, "./testdata/stdinsum", nil, []byte(b.String()))
}

// capeRunStdin is capeRun with the process's standard input, which cape
// run forwards to the job, set to stdin for the run.
func capeRunStdin(stdin *os.File, nodes string, flags []string, dir string, args []string) (out, errText string, err error) {
	old := os.Stdin
	os.Stdin = stdin
	defer func() { os.Stdin = old }()
	return capeRun(nodes, flags, dir, args)
}

// TestStdinAfterLoop streams an input of several megabytes, most of it
// read after the program's loop of regions, where the slaves leave: a
// leaving slave must leave the input stream too, which the master reads no
// further ahead of than its slowest reader (the job hung until killed).
func TestStdinAfterLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	var b strings.Builder
	b.WriteString("1000\n")
	for i := range 600000 {
		fmt.Fprintf(&b, "%d\n", i*7)
	}
	file := filepath.Join(t.TempDir(), "input")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := sharedBuild(t, "./testdata/stdintail")
	want := goRunOutput(t, "./testdata/stdintail", nil, []byte(b.String()))
	if !strings.Contains(want, "lines 600000 ") {
		t.Fatalf("go run read too little: %s", want)
	}
	for _, nodes := range []string{"2", "3"} {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		type result struct {
			out, errText string
			err          error
		}
		done := make(chan result, 1)
		go func() {
			out, errText, err := capeRunStdin(f, nodes, nil, bin, nil)
			done <- result{out, errText, err}
		}()
		var r result
		select {
		case r = <-done:
		case <-time.After(2 * time.Minute):
			t.Fatalf("%s nodes: cape run still running after 2 minutes", nodes)
		}
		f.Close()
		if r.err != nil || r.out != want {
			t.Fatalf("%s nodes: %v, printed %q, want %q\n%s", nodes, r.err, r.out, want, r.errText)
		}
	}
}
