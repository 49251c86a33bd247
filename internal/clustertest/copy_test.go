//go:build linux

package clustertest_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cape-go/cape/internal/clustertest"
	"github.com/cape-go/cape/internal/testenv"
)

// attackLoop is the other user's script on a host: it makes the directory
// of the program's path first, mode 0777, puts a wrapper there that leaves
// a mark (and a copy of the real program in variant "have"), and then,
// until told to stop, puts the wrapper in place of any program it finds
// there or in any directory cape made that it can write (variant "have"
// alternates the wrapper and the real program, to pass a check by content).
const attackLoop = `set -u
D=%[1]s; A=%[2]s; V=%[3]s
mkdir -p "$D" && chmod 777 "$D" || exit 1
printf '#!/bin/sh\necho "the wrapper ran as uid $(id -u)" >>%[2]s/MARK\nexit 1\n' >"$D/.w" && chmod 755 "$D/.w" || exit 1
if [ "$V" = have ]; then cp "$A/real" "$D/.r" && chmod 755 "$D/.r" && cp "$D/.r" "$D/matmul" || exit 1; fi
echo attacking
n=0; end=$(( $(date +%%s) + 90 ))
while [ ! -e "$A/STOP" ] && [ "$(date +%%s)" -lt "$end" ]; do
	n=$((n+1))
	w=.w; if [ "$V" = have ] && [ $((n %% 2)) = 0 ]; then w=.r; fi
	cp "$D/$w" "$D/.n" 2>/dev/null && mv -f "$D/.n" "$D/matmul" 2>/dev/null
	for d in "${TMPDIR:-/tmp}"/cape-run.* /tmp/cape-run.*; do
		[ -d "$d" ] && cp "$D/.w" "$d/matmul" 2>/dev/null
	done
	sleep 0.01
done
`

// TestSSHCopyRace plays another user of the slave hosts (uid nobody, by
// setpriv) who knows where the program comes from (its path is on ssh's
// command line) and races cape's copy of it: they make its directory first,
// mode 0777, and keep replacing the program there (and in any directory of
// cape's they can write) with a wrapper that leaves a mark when run; in
// variant "have" they also start with an identical copy and alternate it with
// the wrapper. The job must give the sequential checksum and the wrapper
// must never run.
func TestSSHCopyRace(t *testing.T) {
	if testing.Short() {
		t.Skip("multi-host runs take seconds")
	}
	t.Parallel()
	setpriv := clustertest.NeedCommand(t, "setpriv", "util-linux")
	c := clustertest.New(t, clustertest.Options{Hosts: 2})
	if len(c.Netns) == 0 {
		testenv.Skip(t, "the copy race needs hosts of their own filesystem view (network and mount namespaces)")
	}
	capeBin, matmul, _, want := build(t)
	// The attacker's files: readable by nobody, the mark writable only by
	// whoever runs the wrapper (the job's user).
	attack, err := os.MkdirTemp("/tmp", "cape-attack-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(attack) })
	if err := os.Chmod(attack, 0o755); err != nil {
		t.Fatal(err)
	}
	real, err := os.ReadFile(matmul)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(attack, "real"), real, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, variant := range []string{"need", "have"} {
		t.Run(variant, func(t *testing.T) {
			_ = os.Remove(filepath.Join(attack, "STOP"))
			_ = os.Remove(filepath.Join(attack, "MARK"))
			prog := privateProgram(t, c, real)
			dir := filepath.Dir(prog)
			for _, h := range c.Hosts {
				startAttacker(t, c, h, setpriv, fmt.Sprintf(attackLoop, dir, attack, variant), attack)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, capeBin, "run", "-n", "3", "--hostfile", c.Hostfile(t, 1),
				"--ssh-config", c.SSHConfig, prog, "--", "-n", matmulN)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			runErr := cmd.Run()
			if mark, err := os.ReadFile(filepath.Join(attack, "MARK")); err == nil {
				t.Fatalf("the other user's wrapper was run by the job: %s\nstderr:\n%s", mark, stderr.String())
			}
			if runErr != nil {
				t.Fatalf("cape run: %v\nstderr:\n%s", runErr, stderr.String())
			}
			if got := checksum(stdout.String()); got != want {
				t.Fatalf("checksum %q, sequential %q\nstderr:\n%s", got, want, stderr.String())
			}
		})
	}
}

// privateProgram writes the program here at a new path below c.Private,
// which is missing on every host, and returns the path.
func privateProgram(t *testing.T, c *clustertest.Cluster, data []byte) string {
	t.Helper()
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	dir := filepath.Join(c.Private, "job-"+hex.EncodeToString(rnd[:]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	prog := filepath.Join(dir, "matmul")
	if err := os.WriteFile(prog, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return prog
}

// startAttacker runs script as uid nobody on host h and waits until it has
// set up; it is stopped (STOP in dir, then by PID) in t.Cleanup.
func startAttacker(t *testing.T, c *clustertest.Cluster, h, setpriv, script, dir string) {
	t.Helper()
	cmd := exec.Command("ssh", "-F", c.SSHConfig, "-o", "BatchMode=yes", h,
		setpriv+" --reuid=nobody --regid=nogroup --clear-groups /bin/sh -c "+shellQuote(script))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = os.WriteFile(filepath.Join(dir, "STOP"), nil, 0o644)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	line := make([]byte, 64)
	n, _ := out.Read(line)
	if !strings.HasPrefix(string(line[:n]), "attacking") {
		t.Fatalf("the attacker on %s did not start: %q %s", h, line[:n], stderr.String())
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestSSHHostAliases runs jobs whose two slaves are on two names of one
// host, so that both copies of the program go to one machine at once
// (finding: a fixed temporary name there made one copy's mv fail): one job,
// three with CAPE_TEST_FULL=1.
func TestSSHHostAliases(t *testing.T) {
	if testing.Short() {
		t.Skip("multi-host runs take seconds")
	}
	t.Parallel()
	c := clustertest.New(t, clustertest.Options{Hosts: 1})
	if len(c.Netns) == 0 {
		testenv.Skip(t, "the program is copied only to hosts that lack it (network and mount namespaces)")
	}
	capeBin, matmul, _, want := build(t)
	data, err := os.ReadFile(matmul)
	if err != nil {
		t.Fatal(err)
	}
	prog := privateProgram(t, c, data)
	cfg, err := os.ReadFile(c.SSHConfig)
	if err != nil {
		t.Fatal(err)
	}
	alias := strings.Replace(string(cfg), "Host h1\n", "Host h1 h1-alias\n", 1)
	aliasConf := filepath.Join(t.TempDir(), "ssh_config")
	if err := os.WriteFile(aliasConf, []byte(alias), 0o644); err != nil {
		t.Fatal(err)
	}
	runs := 1
	if testenv.IsFull() {
		runs = 3 // more chances for the two copies to meet
	}
	for i := range runs {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		cmd := exec.CommandContext(ctx, capeBin, "run", "-n", "3", "--hosts", "h1,h1-alias", "--ssh-config", aliasConf,
			prog, "--", "-n", matmulN)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		err := cmd.Run()
		cancel()
		t.Logf("run %d: %v", i, time.Since(start).Round(time.Millisecond))
		if err != nil {
			t.Fatalf("run %d: %v\nstderr:\n%s", i, err, stderr.String())
		}
		if got := checksum(stdout.String()); got != want {
			t.Fatalf("run %d: checksum %q, sequential %q", i, got, want)
		}
	}
	out, err := exec.Command("ssh", "-F", c.SSHConfig, "-o", "BatchMode=yes", "h1", "ls -A "+c.TmpDir).CombinedOutput()
	if err != nil || len(out) != 0 {
		t.Errorf("h1's TMPDIR %s holds %q after the jobs (%v)", c.TmpDir, out, err)
	}
}
