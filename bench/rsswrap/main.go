// Command rsswrap runs a program and then reports its peak resident set
// size, for cape bench's "peak RSS per node": `rsswrap PROGRAM ARGS...`
// runs PROGRAM as its child with the same standard streams, environment
// and inherited descriptors (those without close-on-exec, from 3 up, as a
// launcher numbers them), forwards SIGTERM, SIGINT, SIGHUP and SIGQUIT to
// it, and when it ends writes
//
//	bench: peak rss N kB                 (or: bench: rank R: peak rss N kB)
//
// on stderr (R from $BENCH_RANK when set), N being the child's ru_maxrss
// from wait4, then exits as the child did (re-raising its signal). Where
// the system has no such count (not Linux) it writes nothing and only
// runs the child.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "rsswrap: usage: rsswrap PROGRAM [ARGS...]")
		return 2
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.ExtraFiles = inheritedFiles()
	cmd.SysProcAttr = childAttr()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "rsswrap: %v\n", err)
		return 127
	}
	go func() {
		for s := range sigs {
			cmd.Process.Signal(s)
		}
	}()
	err := cmd.Wait()
	signal.Stop(sigs)
	if kb, ok := peakKB(cmd.ProcessState); ok {
		rank := ""
		if r := os.Getenv("BENCH_RANK"); r != "" {
			rank = "rank " + r + ": "
		}
		fmt.Fprintf(os.Stderr, "bench: %speak rss %d kB\n", rank, kb)
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		fmt.Fprintf(os.Stderr, "rsswrap: %v\n", err)
		return 127
	}
	return exitAs(cmd.ProcessState)
}
