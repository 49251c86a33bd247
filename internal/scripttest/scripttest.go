// Package scripttest owns the project's data-driven interaction tests
// (etcd raft's interaction_test style): a script in testdata/*.txt feeds a
// state machine one command at a time and lists, after each, the lines it
// printed, so that every case runs in milliseconds without processes.
//
// In a nutshell, it works as follows. A script is blocks of
//
//	# comments and blank lines, kept as they are
//	command key=value ...
//	----
//	expected output, one line each (none: no line)
//	<blank line>
//
// Run parses each script, calls the test's function on every command in
// order and compares what it returned with the expected lines; with
// -update it rewrites the scripts with what the commands printed instead.
// Args parses a command's key=value arguments.
//
// It imports only the standard library, so any package's tests can use it.
package scripttest

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the expected output of testdata/*.txt")

// block is one command of a script and its expected output.
type block struct {
	Pre  []string // comment and blank lines before the command
	Line int      // the command's line number
	Cmd  string
	Want []string
}

// parse reads a script's blocks and the comment and blank lines after the
// last one.
func parse(t testing.TB, file string) (blocks []block, tail []string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cur *block
	var pre []string
	inOut := false
	sc := bufio.NewScanner(f)
	for ln := 1; sc.Scan(); ln++ {
		line := sc.Text()
		switch {
		case cur == nil && (line == "" || strings.HasPrefix(line, "#")):
			pre = append(pre, line)
		case cur == nil:
			blocks = append(blocks, block{Pre: pre, Line: ln, Cmd: line})
			cur, pre = &blocks[len(blocks)-1], nil
		case !inOut && line == "----":
			inOut = true
		case !inOut:
			t.Fatalf("%s:%d: want ---- after the command, got %q", file, ln, line)
		case line == "":
			cur, inOut = nil, false
		default:
			cur.Want = append(cur.Want, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil && !inOut {
		t.Fatalf("%s: the last command has no ----", file)
	}
	return blocks, pre
}

// Run runs every script in testdata/*.txt as a subtest named after the
// file. For each script it calls newRun once, for a fresh state machine,
// then the function it returned on each command in order.
func Run(t *testing.T, newRun func() func(cmd string) ([]string, error)) {
	t.Helper()
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts in testdata: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			runFile(t, file, newRun())
		})
	}
}

// runFile runs one script through run, comparing (or, with -update,
// rewriting) the expected output.
func runFile(t *testing.T, file string, run func(cmd string) ([]string, error)) {
	t.Helper()
	blocks, tail := parse(t, file)
	var rewritten strings.Builder
	for _, b := range blocks {
		got, err := run(b.Cmd)
		if err != nil {
			t.Fatalf("%s:%d: %s: %v", file, b.Line, b.Cmd, err)
		}
		if *update {
			for _, l := range b.Pre {
				fmt.Fprintln(&rewritten, l)
			}
			fmt.Fprintf(&rewritten, "%s\n----\n", b.Cmd)
			for _, l := range got {
				fmt.Fprintln(&rewritten, l)
			}
			fmt.Fprintln(&rewritten)
			continue
		}
		if !slices.Equal(got, b.Want) {
			t.Errorf("%s:%d: %s\ngot:\n\t%s\nwant:\n\t%s", file, b.Line, b.Cmd,
				strings.Join(got, "\n\t"), strings.Join(b.Want, "\n\t"))
		}
	}
	if *update {
		for _, l := range tail {
			fmt.Fprintln(&rewritten, l)
		}
		out := strings.TrimRight(rewritten.String(), "\n") + "\n"
		if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Args are a command's key=value (or bare key) arguments.
type Args map[string]string

// Fields splits a command into its name and its arguments.
func Fields(cmd string) (name string, a Args) {
	fields := strings.Fields(cmd)
	a = Args{}
	if len(fields) == 0 {
		return "", a
	}
	for _, f := range fields[1:] {
		k, v, _ := strings.Cut(f, "=")
		a[k] = v
	}
	return fields[0], a
}

// Int returns key's value as an integer, or def if the key is absent.
func (a Args) Int(key string, def int) (int, error) {
	v, ok := a[key]
	if !ok {
		return def, nil
	}
	return strconv.Atoi(v)
}

// MustInt returns key's value as an integer; the key must be present.
func (a Args) MustInt(key string) (int, error) {
	v, ok := a[key]
	if !ok {
		return 0, errors.New(key + "= missing")
	}
	return strconv.Atoi(v)
}

// Ints returns key's value, a comma-separated list, as integers; an absent
// or empty value is an empty list.
func (a Args) Ints(key string) ([]int, error) {
	if a[key] == "" {
		return nil, nil
	}
	var xs []int
	for f := range strings.SplitSeq(a[key], ",") {
		x, err := strconv.Atoi(f)
		if err != nil {
			return nil, err
		}
		xs = append(xs, x)
	}
	return xs, nil
}
