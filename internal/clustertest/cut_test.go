//go:build linux

package clustertest_test

import (
	"bufio"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cape-go/cape/internal/clustertest"
	"github.com/cape-go/cape/internal/testenv"
)

// TestSSHNodeCutOff runs a job over ssh on two hosts and, while every node
// is in the region, takes host h2's link down inside its namespace: the
// master hears nothing from node 2 (not even heartbeats), and cape run must
// end within the peer timeout plus the launcher's grace, with an error
// naming node 2, leaving no process here or on h1. The node on h2 cannot
// be reached while cut off; once the link is back, its sshd sees that the
// client is gone and the node must end (its lifeline is ssh's stdin).
func TestSSHNodeCutOff(t *testing.T) {
	if testing.Short() {
		t.Skip("multi-host runs take seconds")
	}
	t.Parallel()
	c := clustertest.New(t, clustertest.Options{Hosts: 2})
	if len(c.Netns) == 0 {
		testenv.Skip(t, "cutting a host off needs network namespaces (ip netns add failed)")
	}
	capeBin, _, stall, _ := build(t)
	cmd := exec.Command(capeBin, "run", "-n", "3", "--timeout", "3s", "--hostfile", c.Hostfile(t, 1),
		"--ssh-config", c.SSHConfig, stall)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	restore := func() { _ = c.Exec(1, "ip", "link", "set", "eth0", "up").Run() }
	t.Cleanup(restore)

	lines := make(chan string, 64)
	done := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		done <- cmd.Wait()
	}()
	pidRE := regexp.MustCompile(`^(?:\[node (\d+)@\S+\] )?pid (\d+)$`)
	pids := map[string]int{} // rank → pid
	var log []string
	timeout := time.After(40 * time.Second)
	for inRegion := 0; inRegion < 3; {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("cape run ended early:\n%s", strings.Join(log, "\n"))
			}
			log = append(log, l)
			if m := pidRE.FindStringSubmatch(l); m != nil {
				p, _ := strconv.Atoi(m[2])
				pids[m[1]] = p
			}
			if strings.HasSuffix(l, "in region") {
				inRegion++
			}
		case <-timeout:
			t.Fatalf("nodes not in their region after 40s:\n%s", strings.Join(log, "\n"))
		}
	}
	if out, err := c.Exec(1, "ip", "link", "set", "eth0", "down").CombinedOutput(); err != nil {
		t.Fatalf("cut h2 off: %v: %s", err, out)
	}
	start := time.Now()
	var runErr error
	var rest []string
	wait := time.After(30 * time.Second)
loop:
	for {
		select {
		case l, ok := <-lines:
			if ok {
				rest = append(rest, l)
				continue
			}
			runErr = <-done
			break loop
		case <-wait:
			t.Fatalf("cape run still running 30s after h2 was cut off (peer timeout 3s):\n%s", strings.Join(append(log, rest...), "\n"))
		}
	}
	took := time.Since(start)
	all := strings.Join(rest, "\n")
	t.Logf("\n| case | outcome | time to detect |\n| --- | --- | --- |\n| h2 cut off mid-region (`ip link set eth0 down` in its namespace, --timeout 3s) | %v; %s | %.1fs |",
		runErr, lastLine(rest), took.Seconds())
	if runErr == nil {
		t.Fatalf("cape run succeeded with a node cut off:\n%s", all)
	}
	if !strings.Contains(all, "node 2") {
		t.Errorf("nothing names node 2:\n%s", all)
	}
	gone := func(ranks ...string) []int {
		var alive []int
		for _, r := range ranks {
			if p, ok := pids[r]; ok && running(p) {
				alive = append(alive, p)
			}
		}
		return alive
	}
	if len(pids) != 3 {
		t.Fatalf("node pids %v, want 3:\n%s", pids, strings.Join(log, "\n"))
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(gone("", "1")) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if alive := gone("", "1"); len(alive) > 0 {
		t.Errorf("processes left here or on h1: %v", alive)
	}
	restore()
	deadline = time.Now().Add(30 * time.Second)
	for len(gone("2")) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("node 2 on h2 ended %.1fs after its link came back", time.Since(deadline.Add(-30*time.Second)).Seconds())
	if alive := gone("2"); len(alive) > 0 {
		for _, p := range alive {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		t.Errorf("node 2 (pid %v) still runs on h2 30s after its link came back", alive)
	}
}

func lastLine(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		if s := strings.TrimSpace(lines[i]); s != "" {
			return s
		}
	}
	return ""
}
