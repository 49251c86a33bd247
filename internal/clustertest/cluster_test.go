//go:build linux

package clustertest_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cape-go/cape/internal/clustertest"
	"github.com/cape-go/cape/internal/testenv"
)

const matmulN = "300"

var (
	buildOnce sync.Once
	tools     struct {
		dir, cape, matmul, stall, want string
		err                            error
	}
)

// build builds, once per test binary, the cape command, the translated
// matmul and the stall test program, and computes the sequential checksum.
func build(t *testing.T) (capeBin, matmul, stall, want string) {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "cape-clustertest-bin-")
		if err != nil {
			tools.err = err
			return
		}
		tools.dir = dir
		root, _ := filepath.Abs("../..")
		steps := [][]string{
			{"go", "build", "-o", filepath.Join(dir, "cape"), "./cmd/cape"},
			{"go", "build", "-o", filepath.Join(dir, "stall"), "./cmd/cape/testdata/stall"},
			{filepath.Join(dir, "cape"), "build", "./examples/matmul", "-o", filepath.Join(dir, "matmul")},
		}
		for _, s := range steps {
			cmd := exec.Command(s[0], s[1:]...)
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				tools.err = fmt.Errorf("%s: %v\n%s", strings.Join(s, " "), err, out)
				return
			}
		}
		cmd := exec.Command(filepath.Join(dir, "matmul"), "-seq", "-n", matmulN)
		cmd.Env = append(os.Environ(), "CAPE_SCHED=none")
		out, err := cmd.Output()
		if err != nil {
			tools.err = fmt.Errorf("sequential matmul: %v", err)
			return
		}
		tools.want = checksum(string(out))
		tools.cape, tools.matmul, tools.stall = filepath.Join(dir, "cape"), filepath.Join(dir, "matmul"), filepath.Join(dir, "stall")
		if other := os.Getenv("CAPE_CLUSTERTEST_CAPE"); other != "" {
			tools.cape = other // run the tests against another build of cape, e.g. an older one
		}
	})
	if tools.err != nil {
		t.Fatal(tools.err)
	}
	return tools.cape, tools.matmul, tools.stall, tools.want
}

func TestMain(m *testing.M) {
	code := m.Run()
	if tools.dir != "" {
		os.RemoveAll(tools.dir)
	}
	os.Exit(code)
}

var checksumRE = regexp.MustCompile(`(?m)^matmul n=\d+ checksum=[0-9a-f]{16}$`)

func checksum(out string) string { return checksumRE.FindString(out) }

// TestSSHMatmul runs examples/matmul over ssh on three hosts in separate
// network namespaces; the program is missing on the hosts and is copied.
func TestSSHMatmul(t *testing.T) {
	if testing.Short() {
		t.Skip("multi-host runs take seconds")
	}
	t.Parallel()
	c := clustertest.New(t, clustertest.Options{Hosts: 3, Rate: "1gbit"})
	capeBin, _, _, want := build(t)
	hostfile := c.Hostfile(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, capeBin, "run", "--hostfile", hostfile, "--ssh-config", c.SSHConfig,
		"./examples/matmul", "--", "-n", matmulN)
	cmd.Dir = "../.."
	if c.Private != "" {
		// cape run builds the program below TMPDIR, which every host
		// hides under an empty tmpfs: it must be copied.
		cmd.Env = append(os.Environ(), "TMPDIR="+c.Private)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("cape run over ssh: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	if got := checksum(stdout.String()); got != want {
		t.Fatalf("over ssh: %q, sequential: %q\nstderr:\n%s", got, want, stderr.String())
	}
	if n := strings.Count(stdout.String(), "checksum"); n != 1 {
		t.Errorf("%d checksum lines, want the master's only:\n%s", n, stdout.String())
	}
	if c.Private != "" {
		// The copies were removed with the private directories cape
		// created in each host's TMPDIR, and nothing else was written.
		for _, h := range c.Hosts {
			out, err := exec.Command("ssh", "-F", c.SSHConfig, "-o", "BatchMode=yes", h, "ls -A "+c.Private+" "+c.TmpDir).CombinedOutput()
			if want := c.Private + ":\ntmp\n\n" + c.TmpDir + ":\n"; err != nil || string(out) != want {
				t.Errorf("%s: %s holds %q, want only an empty tmp (%v)", h, c.Private, out, err)
			}
		}
	}
}

// TestSSHUnreachableHost names the host and ssh's error.
func TestSSHUnreachableHost(t *testing.T) {
	t.Parallel()
	c := clustertest.New(t, clustertest.Options{Hosts: 1, Loopback: true})
	capeBin, _, stall, _ := build(t)
	var stderr bytes.Buffer
	cmd := exec.Command(capeBin, "run", "--hosts", c.Hosts[0]+",nosuchhost.invalid", "--ssh-config", c.SSHConfig,
		"--ssh-timeout", "3s", stall)
	cmd.Stderr = &stderr
	err := cmd.Run()
	if err == nil {
		t.Fatal("cape run with an unknown host succeeded")
	}
	msg := stderr.String()
	if !strings.Contains(msg, "nosuchhost.invalid") || !strings.Contains(msg, "ssh") {
		t.Fatalf("error does not name the host and ssh's message:\n%s", msg)
	}
}

// TestSSHKillLeavesNoProcess stops a job that is in the middle of a region,
// by SIGTERM to cape run and by SIGKILL of cape run, and checks by PID
// that no node and no ssh client is left on any host.
func TestSSHKillLeavesNoProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("multi-host runs take seconds")
	}
	t.Parallel()
	c := clustertest.New(t, clustertest.Options{Hosts: 3})
	capeBin, _, stall, _ := build(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(capeBin, "run", "-n", "4", "--hostfile", c.Hostfile(t, 1), "--ssh-config", c.SSHConfig, stall)
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			t.Cleanup(func() { _ = cmd.Process.Kill() })

			// Every node prints "pid N", then "in region".
			pids := map[int]bool{}
			inRegion := 0
			lines := make(chan string)
			go func() {
				sc := bufio.NewScanner(stderr)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
				done <- cmd.Wait()
			}()
			pidRE := regexp.MustCompile(`pid (\d+)$`)
			timeout := time.After(30 * time.Second)
			var log []string
			for inRegion < 4 {
				select {
				case l, ok := <-lines:
					if !ok {
						t.Fatalf("cape run ended early:\n%s", strings.Join(log, "\n"))
					}
					log = append(log, l)
					if m := pidRE.FindStringSubmatch(l); m != nil {
						p, _ := strconv.Atoi(m[1])
						pids[p] = true
					}
					if strings.HasSuffix(l, "in region") {
						inRegion++
					}
				case <-timeout:
					t.Fatalf("nodes not in their region after 30s:\n%s", strings.Join(log, "\n"))
				}
			}
			if len(pids) != 4 {
				t.Fatalf("got pids %v, want 4:\n%s", pids, strings.Join(log, "\n"))
			}
			sshPids := children(cmd.Process.Pid)
			if len(sshPids) < 4 {
				t.Fatalf("cape run has children %v, want the master and 3 ssh clients", sshPids)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			go func() {
				for range lines {
				}
			}()
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				t.Fatal("cape run did not end 15s after the signal")
			}
			all := append(sshPids, keys(pids)...)
			deadline := time.Now().Add(10 * time.Second)
			for {
				var alive []int
				for _, p := range all {
					if running(p) {
						alive = append(alive, p)
					}
				}
				if len(alive) == 0 {
					break
				}
				if time.Now().After(deadline) {
					for _, p := range alive {
						_ = syscall.Kill(p, syscall.SIGKILL)
					}
					t.Fatalf("processes left 10s after %v: %v", sig, alive)
				}
				time.Sleep(50 * time.Millisecond)
			}
			if len(c.Netns) > 0 {
				// Each host's TMPDIR is its own: the copy of the
				// program there must go too, even after kill -9.
				waitNoCopies(t, c, sig)
			}
		})
	}
}

// waitNoCopies fails t unless, within 10 s, no host holds a private
// directory of a copied program (cape-run.*) in its TMPDIR.
func waitNoCopies(t *testing.T, c *clustertest.Cluster, sig syscall.Signal) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var left []string
		for _, h := range c.Hosts {
			out, err := exec.Command("ssh", "-F", c.SSHConfig, h, `ls -d "${TMPDIR:-/tmp}"/cape-run.* 2>/dev/null; true`).Output()
			if err != nil {
				t.Fatalf("list %s's TMPDIR: %v", h, err)
			}
			if s := strings.TrimSpace(string(out)); s != "" {
				left = append(left, h+": "+s)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("copies of the program left on the hosts 10s after %v: %v", sig, left)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func keys(m map[int]bool) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	return out
}

// running reports whether pid exists and is not a zombie.
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// children returns the PIDs whose parent is pid.
func children(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, p)
		}
	}
	return out
}

// tokenFile writes a fresh job token for a scheduler run.
// srunJob returns the command running prog with args as 3 tasks of a
// Slurm job step, with a fresh token file; it skips (failing under
// CAPE_TEST_STRICT) without a usable partition, and cancels the job at the
// test's end.
func srunJob(ctx context.Context, t *testing.T, prog string, args ...string) *exec.Cmd {
	t.Helper()
	srun := clustertest.NeedCommand(t, "srun", "slurm-client (and slurmctld, slurmd, munge: bash .ci/cluster-setup.sh)")
	if out, err := exec.Command("sinfo", "-h", "-o", "%a %t").CombinedOutput(); err != nil ||
		!regexp.MustCompile(`up (idle|mix|alloc)`).Match(out) {
		testenv.Skip(t, "no usable Slurm partition (sinfo: %q, %v; bash .ci/cluster-setup.sh starts one)", out, err)
	}
	name := fmt.Sprintf("cape-test-%d-%s", os.Getpid(), filepath.Base(prog))
	t.Cleanup(func() {
		// Cancel, by job id, anything this test left queued or running.
		out, _ := exec.Command("squeue", "-h", "-n", name, "-o", "%i").Output()
		for _, id := range strings.Fields(string(out)) {
			_ = exec.Command("scancel", id).Run()
		}
	})
	cmd := exec.CommandContext(ctx, srun, append([]string{"-n", "3", "--job-name", name, "--time", "2",
		"--kill-on-bad-exit=1", prog}, args...)...)
	cmd.Env = append(os.Environ(), "CAPE_TOKEN_FILE="+tokenFile(t))
	return cmd
}

// mpirunJob returns the command running prog with args as 3 ranks of Open
// MPI's mpirun, with a fresh token file, in its own process group, which
// is killed at the test's end.
func mpirunJob(ctx context.Context, t *testing.T, prog string, args ...string) *exec.Cmd {
	t.Helper()
	mpirun := clustertest.NeedCommand(t, "mpirun", "openmpi-bin")
	cmd := exec.CommandContext(ctx, mpirun, append([]string{"--allow-run-as-root", "--oversubscribe", "-np", "3",
		"-x", "CAPE_TOKEN_FILE", prog}, args...)...)
	cmd.Env = append(os.Environ(), "CAPE_TOKEN_FILE="+tokenFile(t))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	t.Cleanup(func() {
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	})
	return cmd
}

func tokenFile(t *testing.T) string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(p, []byte(hex.EncodeToString(b)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSrunMatmul runs the translated matmul as 3 tasks of srun on the
// single-node Slurm of .ci/cluster-setup.sh.
func TestSrunMatmul(t *testing.T) {
	if testing.Short() {
		t.Skip("scheduler runs take seconds")
	}
	t.Parallel()
	_, matmul, _, want := build(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := srunJob(ctx, t, matmul, "-n", matmulN)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("srun: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	if got := checksum(stdout.String()); got != want || strings.Count(stdout.String(), "checksum") != 1 {
		t.Fatalf("srun -n 3 printed %q, sequential %q\nstderr:\n%s", stdout.String(), want, stderr.String())
	}
}

// TestMpirunMatmul runs the translated matmul as 3 ranks of Open MPI's
// mpirun.
func TestMpirunMatmul(t *testing.T) {
	if testing.Short() {
		t.Skip("scheduler runs take seconds")
	}
	t.Parallel()
	_, matmul, _, want := build(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := mpirunJob(ctx, t, matmul, "-n", matmulN)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("mpirun: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	if got := checksum(stdout.String()); got != want || strings.Count(stdout.String(), "checksum") != 1 {
		t.Fatalf("mpirun -np 3 printed %q, sequential %q\nstderr:\n%s", stdout.String(), want, stderr.String())
	}
}

// TestSSHSurvivesLostSlaves runs cmd/cape/testdata/survive (five regions,
// one per schedule) over ssh on three hosts while slaves are killed or
// disconnected mid-region: the job completes with the sequential output and
// exit status 0, the losses are reported naming the nodes, and no node
// process is left.
func TestSSHSurvivesLostSlaves(t *testing.T) {
	if testing.Short() {
		t.Skip("multi-host runs take seconds")
	}
	t.Parallel()
	c := clustertest.New(t, clustertest.Options{Hosts: 3})
	capeBin, _, _, _ := build(t)
	prog := filepath.Join(t.TempDir(), "survive")
	args := []string{"-n", "2000", "-rounds", "3000"}
	cmd := exec.Command(capeBin, "build", "./cmd/cape/testdata/survive", "-o", prog)
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cape build: %v\n%s", err, out)
	}
	seq := exec.Command(prog, args...)
	seq.Env = append(os.Environ(), "CAPE_SCHED=none")
	want, err := seq.Output()
	if err != nil {
		t.Fatalf("sequential run: %v", err)
	}
	for _, fault := range []string{
		"node=2,at=compute,do=crash,region=1,after=2ms",
		"node=1,at=create,do=crash,region=3;node=3,at=send,do=drop,region=5",
	} {
		t.Run(fault, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, capeBin, append([]string{"run", "-n", "4", "--timeout", "4s",
				"--hostfile", c.Hostfile(t, 1), "--ssh-config", c.SSHConfig, prog, "--"}, args...)...)
			cmd.Env = append(os.Environ(), "CAPE_FAULT="+fault)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("cape run over ssh: %v\nstderr:\n%s", err, stderr.String())
			}
			if stdout.String() != string(want) {
				t.Errorf("printed\n%s\nwant\n%s\nstderr:\n%s", stdout.String(), want, stderr.String())
			}
			for _, f := range strings.Split(fault, ";") {
				rank := strings.TrimPrefix(strings.Split(f, ",")[0], "node=")
				launcher := regexp.MustCompile(`(?m)^cape: node ` + rank + ` on \S+ \(ssh pid \d+\) .*; (the job goes on without it|the master had completed the job)`)
				if !strings.Contains(stderr.String(), "cape: master: lost node "+rank+" ") && !launcher.MatchString(stderr.String()) {
					t.Errorf("the loss of node %s is not reported:\n%s", rank, stderr.String())
				}
			}
			var pids []int
			for _, m := range regexp.MustCompile(`(?m)pid (\d+)$`).FindAllStringSubmatch(stderr.String(), -1) {
				p, _ := strconv.Atoi(m[1])
				pids = append(pids, p)
			}
			// Remote nodes end as their ssh sessions close: give them a
			// moment.
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				var left []int
				for _, p := range pids {
					if running(p) {
						left = append(left, p)
					}
				}
				if len(left) == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("node processes left: %v", left)
				}
			}
		})
	}
}
