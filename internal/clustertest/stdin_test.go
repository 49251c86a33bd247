//go:build linux

package clustertest_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cape-go/cape/internal/clustertest"
)

// TestStdinOnEveryNode runs cmd/cape/testdata/stdinsum, which reads its
// standard input between regions, over ssh on three hosts and under srun
// and mpirun (which give the input to rank 0 only): the master streams it to the
// slaves, and the output is the sequential run's.
func TestStdinOnEveryNode(t *testing.T) {
	if testing.Short() {
		t.Skip("multi-host runs take seconds")
	}
	t.Parallel()
	capeBin, _, _, _ := build(t)
	dir := t.TempDir()
	prog := filepath.Join(dir, "stdinsum")
	build := exec.Command(capeBin, "build", "./cmd/cape/testdata/stdinsum", "-o", prog)
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("cape build: %v\n%s", err, out)
	}
	var in strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&in, "%d\n", i*7919%100003)
	}
	input := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(input, []byte(in.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	seq := exec.Command(prog)
	seq.Env = append(os.Environ(), "CAPE_SCHED=none")
	seq.Stdin = strings.NewReader(in.String())
	b, err := seq.Output()
	if err != nil || !strings.HasPrefix(string(b), "batches 40 ") {
		t.Fatalf("sequential run: %v: %q", err, b)
	}
	want := string(b)
	run := func(t *testing.T, cmd *exec.Cmd) {
		f, err := os.Open(input)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var stdout, stderr bytes.Buffer
		cmd.Stdin, cmd.Stdout, cmd.Stderr = f, &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
		}
		if stdout.String() != want {
			t.Fatalf("printed %q, the sequential run %q\nstderr:\n%s", stdout.String(), want, stderr.String())
		}
	}
	t.Run("ssh", func(t *testing.T) {
		c := clustertest.New(t, clustertest.Options{Hosts: 3, Rate: "1gbit"})
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, capeBin, "run", "--hostfile", c.Hostfile(t, 1), "--ssh-config", c.SSHConfig, prog)
		if c.Private != "" {
			cmd.Env = append(os.Environ(), "TMPDIR="+c.Private)
		}
		run(t, cmd)
	})
	t.Run("srun", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		run(t, srunJob(ctx, t, prog)) // srun gives its standard input to task 0 only
	})
	t.Run("mpirun", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		run(t, mpirunJob(ctx, t, prog))
	})
}
