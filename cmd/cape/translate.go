package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/spf13/pflag"

	"github.com/cape-go/cape/internal/gocmd"
	"github.com/cape-go/cape/internal/launch"
	"github.com/cape-go/cape/translate"
)

// directiveHelp summarizes the directive grammar for --help.
const directiveHelp = `Directives (Go comments, no space after //, on the line before the statement):

	//cape:parallel for [clauses]         before: for i := lo; i < hi; i++ { ... }
	                                      (also <=, >, >=, i += s, i -= s, i--,
	                                       for i := range n, for i, v := range slice)
	//cape:parallel sections [clauses]    before a block { ... } whose statements are
	//cape:section                        blocks, each after a //cape:section line

Clauses:

	shared(x, y)          x, y are written by the region on purpose (moved to the arena)
	private(x)            each node gets its own zero x
	firstprivate(x)       each node gets its own x, initialized from x
	lastprivate(x)        private, and x gets the value of the sequentially last iteration
	reduction(op:x, y)    op is + * - & | ^ && || min max
	schedule(kind[, n])   kind is static (default), dynamic or guided; n is the chunk size

Memory that a region writes must live in the CAPE arena; the translator moves
it there (make, new, arrays, numbers and structs of numbers) and reports, as
file:line:col errors, what it cannot move (maps, strings, append, memory from
elsewhere). Without cape, the program builds and runs sequentially.
`

const translateUsage = `Usage: cape translate [flags] PKGDIR

Translate translates the annotated Go package in the directory PKGDIR and
writes the files it changes: to the directory given by -o (created if need
be), or to standard output. The user's files are never modified. Errors are
printed as file:line:col: message, all of them, and the exit status is 1.

Example:

	cape translate ./examples/reduction            # print the generated code
	cape translate ./examples/stencil -o /tmp/out  # write it to /tmp/out

`

const buildUsage = `Usage: cape build [flags] PKGDIR

Build translates the annotated package in PKGDIR and builds it into an
executable with go build -overlay, so the user's files are never modified.
A package without directives is built as it is. Run the result with
cape run -n N BIN, or alone as a single node.

Example:

	cape build ./examples/stencil -o stencil
	cape run -n 4 ./stencil -- -n 512 -iters 100

`

func translateCmd(args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("translate", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.StringP("output", "o", "", "write the translated files to this directory instead of standard output")
	fs.Usage = func() { // asked for: standard output, as run's
		fmt.Fprint(stdout, translateUsage)
		fmt.Fprintf(stdout, "Flags:\n%s\n%s", fs.FlagUsages(), directiveHelp)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil
		}
		return usagef("translate: %v", err)
	}
	if fs.NArg() != 1 {
		return usagef("translate: want one package directory, got %d arguments", fs.NArg())
	}
	ctx, stop := launch.SignalContext()
	defer stop()
	res, err := gocmd.Translate(ctx, fs.Arg(0))
	if err != nil && ctx.Err() != nil {
		return launch.Interrupted(ctx, "the translation")
	}
	if err != nil {
		return diagnostics(err, stderr)
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(stderr, w)
	}
	if len(res.Files) == 0 {
		fmt.Fprintf(stderr, "cape: %s has no //cape: directives; nothing to translate\n", fs.Arg(0))
		return nil
	}
	paths := make([]string, 0, len(res.Files))
	for p := range res.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	if *out == "" {
		for _, p := range paths {
			fmt.Fprintf(stdout, "// ==> %s <==\n", p)
			if _, err := stdout.Write(res.Files[p]); err != nil {
				return err
			}
		}
		return nil
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	for _, p := range paths {
		if err := os.WriteFile(filepath.Join(*out, filepath.Base(p)), res.Files[p], 0o644); err != nil {
			return err
		}
	}
	return nil
}

func buildCmd(args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("build", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.StringP("output", "o", "", "the executable to write (default: the directory's name)")
	fs.Usage = func() { // asked for: standard output, as run's
		fmt.Fprint(stdout, buildUsage)
		fmt.Fprintf(stdout, "Flags:\n%s\n%s", fs.FlagUsages(), directiveHelp)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil
		}
		return usagef("build: %v", err)
	}
	if fs.NArg() == 0 {
		return usagef("build: want one package directory, got none")
	}
	dir, rest, err := goFilesPackage("build", fs.Arg(0), fs.Args()[1:])
	switch {
	case err != nil:
		return err
	case len(rest) > 0:
		return usagef("build: want one package directory, got %d arguments", fs.NArg())
	}
	bin := *out
	if bin == "" {
		bin = execName(fs.Arg(0), dir) // as go build names it
	}
	ctx, stop := launch.SignalContext()
	defer stop()
	if err := gocmd.Build(ctx, dir, bin, stderr); err != nil {
		if ctx.Err() != nil {
			return launch.Interrupted(ctx, "the build")
		}
		return diagnostics(err, stderr)
	}
	return nil
}

// diagnostics prints a translation's diagnostics one per line, in the
// format of go vet, and returns a short error for the exit status.
func diagnostics(err error, stderr io.Writer) error {
	var list translate.ErrorList
	if !errors.As(err, &list) {
		return err
	}
	for _, d := range list {
		fmt.Fprintln(stderr, d)
	}
	if len(list) == 1 {
		return errors.New("the program cannot be translated: 1 error, above")
	}
	return fmt.Errorf("the program cannot be translated: %d errors, above", len(list))
}
