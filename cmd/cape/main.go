// Command cape runs OpenMP-style annotated Go programs on a cluster by
// incremental checkpointing. See `cape help`.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/cape-go/cape/internal/launch"
)

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	if err == nil {
		return
	}
	var ee *launch.ExitError
	if errors.As(err, &ee) {
		fmt.Fprintf(os.Stderr, "cape: %v\n", ee.Msg)
		os.Exit(ee.Code)
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(os.Stderr, "cape: %v\nRun 'cape help' for usage.\n", ue.err)
		os.Exit(2)
	}
	fmt.Fprintf(os.Stderr, "cape: %v\n", err)
	os.Exit(1)
}

// usageError is a mistake in the command line.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

type command struct {
	name, summary string
	run           func(args []string, stdout, stderr io.Writer) error
}

// commands is the command table, in the order cape help lists it. It is a
// function so that help, which lists the table, can be part of it.
func commands() []command {
	return []command{
		{"run", "build a package and run it on N nodes", runCmd},
		{"join", "add a node to a running job that keeps a checkpoint log", joinCmd},
		{"build", "translate a package and build it into an executable", buildCmd},
		{"translate", "show the Go code that CAPE generates for a package", translateCmd},
		{"bench", "reproduce the paper's Table I and Figs. 4-6 against baselines", benchCmd},
		{"version", "print which cape this is: its version, commit and Go", versionCmd},
		{"help", "show help for cape or one of its commands", helpCmd},
	}
}

const overview = `cape runs OpenMP-style annotated Go programs on a cluster by incremental
checkpointing (CAPE). Every node runs the same program; each parallel region is
split across the nodes; what each node wrote is exchanged and injected, so all
nodes leave the region with the same memory.

Usage:

	cape <command> [flags] [arguments]

Commands:
`

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("no command given")
	}
	name := args[0]
	switch name {
	case "-h", "--help":
		name = "help"
	case "--version":
		name = "version"
	}
	for _, c := range commands() {
		if c.name == name {
			return c.run(args[1:], stdout, stderr)
		}
	}
	return usagef("unknown command %q", args[0])
}

func helpCmd(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		for _, c := range commands() {
			if args[0] == "help" {
				return helpCmd(nil, stdout, stderr)
			}
			if c.name == args[0] {
				return c.run([]string{"--help"}, stdout, stderr)
			}
		}
		return usagef("unknown command %q", args[0])
	}
	fmt.Fprint(stdout, overview)
	for _, c := range commands() {
		fmt.Fprintf(stdout, "\t%-10s %s\n", c.name, c.summary)
	}
	fmt.Fprint(stdout, `
Examples:

	cape run -n 4 ./examples/matmul -- -n 1024    # 4 local nodes
	cape translate ./examples/matmul -o /tmp/out  # see the generated templates

Use "cape help <command>" for more about a command.
`)
	return nil
}

// versionCmd prints the module's version (or "devel"), the commit it was
// built from with its time and whether the tree had changes, and the Go
// toolchain and platform: what a bug report needs.
func versionCmd(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		if args[0] == "-h" || args[0] == "--help" {
			fmt.Fprint(stdout, "Usage: cape version\n\nversion prints which cape this is: its module version, the commit it was built\nfrom, and the Go toolchain and platform.\n")
			return nil
		}
		return usagef("version: takes no arguments")
	}
	version, commit := "devel", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			version = v
		}
		var rev, at, dirty string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = ", with uncommitted changes"
				}
			}
		}
		if rev != "" {
			commit = fmt.Sprintf(" (commit %.12s, %s%s)", rev, at, dirty)
		} else if version == "devel" {
			commit = " (no commit recorded: built outside a git checkout or with -buildvcs=false)"
		}
	}
	fmt.Fprintf(stdout, "cape %s%s %s %s/%s\n", version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
