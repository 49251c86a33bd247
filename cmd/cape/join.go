package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/cape-go/cape/internal/launch"
	"github.com/cape-go/cape/internal/nodeenv"
)

const joinHelp = `Usage: cape join [flags] DIR

Adds a node to a running job that keeps a checkpoint log in DIR (cape run
--checkpoint DIR --transfer eager: a job with the lazy transfer refuses
joining nodes). The node runs the job's program with the job's arguments:
it replays the log as a restart does (sequential code runs, every logged
region injects its logged result, checking a hash of the arena at its
entry), keeps reading the log while the job advances, then asks the master
to admit it. The master admits it just before it sends a region's result;
the node reads the regions up to that one from the log and takes a share of
every region after it, like the job's other nodes. Nothing of the job waits
for it until then; a node that fails or is killed after joining is a lost
node, whose work the others re-execute (cape run --max-lost).

The job's master writes DIR/cape.join (mode 0600, in the 0700 checkpoint
directory) once its nodes have started, and removes it when the job ends: the
master's address, the job's token, the program's path and SHA-256 and its
arguments. The token is never on a command line. The program must be the
job's (by default the one the file names; --program another copy of it): a
different binary is refused. The node's stdout is not shown (the job's
output is the master's); its stderr is, with "cape: node N:" on the runtime's
lines. A job admits up to 64 joining nodes over its life, each under a new
rank from the job's initial size on.

Under a scheduler, start the job's program itself (the same binary, the same
arguments) with CAPE_JOIN=DIR in its environment, e.g.
	srun -n 1 env CAPE_JOIN=/shared/ck ./heat -steps 5000

Examples:

	cape run -n 2 --checkpoint ck --transfer eager ./examples/stencil -- -iters 5000 &
	cape join ck                        # one more node, on this machine
	cape join --program ./stencil ck    # a copy of the job's binary
`

func joinCmd(args []string, stdout, stderr io.Writer) error {
	var program string
	var output bool
	fs := pflag.NewFlagSet("join", pflag.ContinueOnError)
	fs.SetInterspersed(false)
	fs.SetOutput(io.Discard)
	fs.StringVar(&program, "program", "", "run this copy of the job's program (same SHA-256) instead of the path the join file names")
	fs.BoolVar(&output, "output", false, "show the joining node's stdout")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprint(stdout, joinHelp+"\nFlags:\n"+fs.FlagUsages())
			return nil
		}
		return usagef("join: %v", err)
	}
	if fs.NArg() != 1 {
		return usagef("join: want one checkpoint directory (cape join DIR), got %d arguments", fs.NArg())
	}
	dir, err := filepath.Abs(fs.Arg(0))
	if err != nil {
		return usagef("join: %s: %v", fs.Arg(0), err)
	}
	info, err := nodeenv.ReadJoin(dir)
	if err != nil {
		return fmt.Errorf("join: %w", err)
	}
	if program == "" {
		program = info.Program
	} else if program, err = filepath.Abs(program); err != nil {
		return usagef("join: --program: %v", err)
	}
	if err := info.CheckProgram(program); err != nil {
		return fmt.Errorf("join: %w", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cmd := exec.CommandContext(ctx, program, info.Args...)
	cmd.Env = append(joinEnviron(), nodeenv.Join+"="+dir)
	cmd.Stdout, cmd.Stderr = io.Discard, stderr
	if output {
		cmd.Stdout = stdout
	}
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return &launch.ExitError{Code: max(ee.ExitCode(), 1), Msg: fmt.Sprintf("join: the joining node ended with %v", ee.ProcessState)}
	}
	if err != nil {
		return fmt.Errorf("join: %w", err)
	}
	return nil
}

// joinEnviron is this process's environment without the variables that
// describe a node of another job (a joining node's come from the join file).
func joinEnviron() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "CAPE_") && k != nodeenv.Fault {
			continue
		}
		env = append(env, kv)
	}
	return env
}
