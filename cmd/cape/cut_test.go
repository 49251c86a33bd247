package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cape-go/cape/internal/nodeenv"
	"github.com/cape-go/cape/internal/testenv"
)

// CutsEnv names the variable that sets how many random cuts TestCutConnections
// makes (default 6, 12 with CAPE_TEST_FULL=1). CutSeedEnv replays one run's
// choices.
const (
	CutsEnv    = "CAPE_TEST_CUTS"
	CutSeedEnv = "CAPE_TEST_CUT_SEED"
)

// TestCutConnections is the fault-injection test of the job's connections:
// each run starts a job on 2 or 3 nodes, waits a random time, and resets
// (ss -K, as a failing network would) one of the TCP connections between the
// job's processes, chosen at random (a node's main connection, a relay link,
// the page server's, the standard-input stream's, ...). Every run
// must either print exactly what go run prints and exit 0, or exit non-zero
// with an error naming a node; never a different output with exit 0, and
// never a hang.
func TestCutConnections(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	if runtime.GOOS != "linux" {
		t.Skip("cutting connections uses Linux's socket diagnostics (ss -K)")
	}
	if os.Geteuid() != 0 {
		testenv.Skip(t, "resetting another process's TCP connections (ss -K) needs root")
	}
	if _, err := exec.LookPath("ss"); err != nil {
		testenv.Skip(t, "ss (iproute2) is not installed: apt-get install iproute2")
	}
	t.Parallel()
	cuts := 6
	if testenv.IsFull() {
		cuts = 12
	}
	if v := os.Getenv(CutsEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a positive count", CutsEnv, v)
		}
		cuts = n
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv(CutSeedEnv); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", CutSeedEnv, v, err)
		}
		seed = s
	}
	t.Logf("%s=%d %s=%d", CutSeedEnv, seed, CutsEnv, cuts)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))

	jobs := cutJobs(t)
	capeBin := buildCape(t, t.TempDir()) // each cut run a process tree of its own
	var table strings.Builder
	fmt.Fprintf(&table, "\n| run | job | nodes | after | cut | outcome |\n| --- | --- | --- | --- | --- | --- |\n")
	exact, failed, landed := 0, 0, 0
	// How long each job takes uncut on 2 and 3 nodes (and that it is exact
	// then): the cuts fall between 5 % and 90 % of it.
	took := map[string]time.Duration{}
	for _, job := range jobs {
		for _, nodes := range []int{2, 3} {
			start := time.Now()
			res := cutOnce(t, capeBin, job, nodes, cutRunLimit, rng)
			if res.err != nil || res.stdout != job.want {
				t.Fatalf("%s on %d nodes, uncut: %v\n got %q\nwant %q\nstderr:\n%s", job.name, nodes, res.err, res.stdout, job.want, res.stderr)
			}
			took[fmt.Sprint(job.name, nodes)] = time.Since(start)
		}
	}
	t.Logf("uncut: %v", took)
	for i := range cuts {
		job := jobs[i%len(jobs)]
		nodes := 2 + (i/len(jobs))%2
		d := took[fmt.Sprint(job.name, nodes)]
		delay := d/20 + time.Duration(rng.Int64N(int64(d*17/20)))
		res := cutOnce(t, capeBin, job, nodes, delay, rng)
		if !strings.HasPrefix(res.cut, "none") && !strings.HasPrefix(res.cut, "failed") {
			landed++
		}
		switch {
		case res.hung:
			t.Errorf("run %d (%s on %d nodes, cut %s after %v): cape run did not end within %v; stderr:\n%s",
				i, job.name, nodes, res.cut, delay, cutRunLimit, res.stderr)
		case res.err == nil && res.stdout != job.want:
			t.Errorf("run %d (%s on %d nodes, cut %s after %v): WRONG ANSWER with exit 0:\n got %q\nwant %q\nstderr:\n%s",
				i, job.name, nodes, res.cut, delay, res.stdout, job.want, res.stderr)
		case res.err == nil:
			exact++
		case !namesNode(res.err.Error() + "\n" + res.stderr):
			t.Errorf("run %d (%s on %d nodes, cut %s after %v): failed without naming a node: %v\nstderr:\n%s",
				i, job.name, nodes, res.cut, delay, res.err, res.stderr)
		default:
			failed++
		}
		outcome := "exact output, exit 0"
		if res.err != nil {
			outcome = "failed: " + firstLine(res.err.Error())
		}
		fmt.Fprintf(&table, "| %d | %s | %d | %v | %s | %s |\n", i, job.name, nodes, delay.Round(time.Millisecond), res.cut, outcome)
	}
	t.Logf("%d cuts (%d reset a connection): %d exact, %d failed naming a node%s", cuts, landed, exact, failed, table.String())
	if landed == 0 {
		// Every run ended uncut: the test checked nothing.
		t.Errorf("none of the %d cuts reset a connection%s", cuts, table.String())
	}
}

// cutRunLimit bounds one cut run: a job that outlives it hangs.
const cutRunLimit = 60 * time.Second

// cutJob is one program the cutting test runs, with go run's output.
type cutJob struct {
	name  string
	bin   string
	args  []string
	stdin []byte
	want  string
}

// cutJobs builds the programs: one reading a long standard input between
// regions (the stdin stream), one iterating a stencil (main connections,
// relay links, the page server of lazy transfer).
func cutJobs(t *testing.T) []cutJob {
	t.Helper()
	var in bytes.Buffer
	for i := range 3000000 {
		fmt.Fprintf(&in, "%d\n", i*7919%100003)
	}
	stdinsum := cutJob{name: "stdinsum", bin: sharedBuild(t, "./testdata/stdinsum"), stdin: in.Bytes()}
	stdinsum.want = goRunOutput(t, "./testdata/stdinsum", nil, stdinsum.stdin)
	stencil := cutJob{name: "stencil", bin: sharedBuild(t, "../../examples/stencil"), args: []string{"-n", "256", "-iters", "300"}}
	stencil.want = goRunOutput(t, "../../examples/stencil", stencil.args, nil)
	return []cutJob{stdinsum, stencil}
}

// goRunOutput is go run's standard output for dir with args and stdin; a
// run of more than 2 minutes fails the test.
func goRunOutput(t *testing.T, dir string, args []string, stdin []byte) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", append([]string{"run", "."}, args...)...)
	cmd.Dir, cmd.Stdin = dir, bytes.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run %s: %v", dir, err)
	}
	return string(out)
}

// cutResult is how one cut run ended.
type cutResult struct {
	stdout, stderr string
	err            error
	hung           bool
	cut            string // the connection reset, or why none was
}

// cutOnce runs job on nodes, resets one of its connections after delay, and
// waits for the job to end.
func cutOnce(t *testing.T, capeBin string, job cutJob, nodes int, delay time.Duration, rng *rand.Rand) cutResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cutRunLimit)
	defer cancel()
	args := []string{"run", "-n", strconv.Itoa(nodes), job.bin}
	if len(job.args) > 0 {
		args = append(append(args, "--"), job.args...)
	}
	cmd := exec.CommandContext(ctx, capeBin, args...)
	cmd.Stdin = bytes.NewReader(job.stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start cape run: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	res := cutResult{cut: "none (the job had ended)"}
	select {
	case err := <-done:
		res.err = err
	case <-time.After(delay):
		res.cut = cutOne(cmd.Process.Pid, job.bin, rng)
		res.err = <-done
	}
	res.stdout, res.stderr = stdout.String(), stderr.String()
	if ctx.Err() != nil {
		res.hung = true
	}
	return res
}

// cutOne resets one established TCP connection between two processes of the
// job under root (the node processes running bin), chosen at random, and
// says which: the two nodes' ranks and ports.
func cutOne(root int, bin string, rng *rand.Rand) string {
	pids := jobProcesses(root, bin)
	rank := map[string]string{} // socket inode → "node R"
	for _, pid := range pids {
		r := nodeRank(pid)
		for _, ino := range socketInodes(pid) {
			rank[ino] = r
		}
	}
	type end struct{ addr, node string }
	ends := map[string]end{} // local address → its end, for established sockets of the job
	for _, s := range tcpSockets() {
		if r, ok := rank[s.inode]; ok && s.state == "01" {
			ends[s.local+" "+s.remote] = end{s.local, r}
		}
	}
	type conn struct{ a, b end }
	var conns []conn
	for key, a := range ends {
		local, remote, _ := strings.Cut(key, " ")
		if b, ok := ends[remote+" "+local]; ok && local < remote {
			conns = append(conns, conn{a, b})
		}
	}
	if len(conns) == 0 {
		return fmt.Sprintf("none (no connection among %d processes)", len(pids))
	}
	sort.Slice(conns, func(i, j int) bool { return conns[i].a.addr < conns[j].a.addr })
	c := conns[rng.IntN(len(conns))]
	// Without a header (-H), ss -K prints the sockets it reset: none when
	// the connection had closed or the kernel cannot destroy sockets
	// (CONFIG_INET_DIAG_DESTROY), where it still exits 0.
	out, err := exec.Command("ss", "-K", "-H", "-t", "src", c.a.addr, "dst", c.b.addr).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("failed (ss -K: %v: %s)", err, bytes.TrimSpace(out))
	}
	if len(bytes.TrimSpace(out)) == 0 {
		return fmt.Sprintf("none (ss -K reset nothing of %s %s ↔ %s %s)", c.a.node, portOf(c.a.addr), c.b.node, portOf(c.b.addr))
	}
	return fmt.Sprintf("%s %s ↔ %s %s (1 of %d)", c.a.node, portOf(c.a.addr), c.b.node, portOf(c.b.addr), len(conns))
}

// nodeRank is "node R" for the node process pid (its CAPE_RANK), or
// "helper of node R" for a process a node started.
func nodeRank(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	for _, kv := range bytes.Split(b, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte(nodeenv.Rank+"=")); ok {
			return "node " + string(v)
		}
	}
	// Not a node: a node's helper process (lazy transfer's), named by its parent.
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		if f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:])); len(f) > 1 {
			if ppid, err := strconv.Atoi(f[1]); err == nil && ppid != pid {
				if r := nodeRank(ppid); strings.HasPrefix(r, "node ") {
					return "helper of " + r
				}
			}
		}
	}
	return fmt.Sprintf("pid %d", pid)
}

// jobProcesses lists the descendants of root that run bin.
func jobProcesses(root int, bin string) []int {
	ents, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The command name is in parentheses and may hold spaces.
		rest := b[bytes.LastIndexByte(b, ')')+1:]
		f := strings.Fields(string(rest))
		if len(f) > 2 {
			parent[pid], _ = strconv.Atoi(f[1])
		}
	}
	var pids []int
	for pid := range parent {
		for p := parent[pid]; p > 1; p = parent[p] {
			if p == root {
				if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); exe == bin {
					pids = append(pids, pid)
				}
				break
			}
		}
	}
	return pids
}

// socketInodes lists the socket inodes pid has open.
func socketInodes(pid int) []string {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, _ := os.ReadDir(dir)
	var inos []string
	for _, e := range ents {
		l, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err == nil && strings.HasPrefix(l, "socket:[") {
			inos = append(inos, strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]"))
		}
	}
	return inos
}

// tcpSocket is a line of /proc/net/tcp or tcp6.
type tcpSocket struct{ local, remote, state, inode string }

// tcpSockets reads the machine's TCP sockets, addresses as ss takes them.
func tcpSockets() []tcpSocket {
	var socks []tcpSocket
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Scan() // the header
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) < 10 {
				continue
			}
			socks = append(socks, tcpSocket{procAddr(f[1]), procAddr(f[2]), f[3], f[9]})
		}
	}
	return socks
}

// procAddr turns /proc/net/tcp's "0100007F:1F90" into "127.0.0.1:8080" (and
// an IPv6 address into "[...]:port").
func procAddr(s string) string {
	h, p, _ := strings.Cut(s, ":")
	port, _ := strconv.ParseUint(p, 16, 16)
	var ip []byte
	for i := 0; i+8 <= len(h); i += 8 {
		w, _ := strconv.ParseUint(h[i:i+8], 16, 32)
		ip = append(ip, byte(w), byte(w>>8), byte(w>>16), byte(w>>24))
	}
	if len(ip) == 4 {
		return fmt.Sprintf("%d.%d.%d.%d:%d", ip[0], ip[1], ip[2], ip[3], port)
	}
	var parts []string
	for i := 0; i+1 < len(ip); i += 2 {
		parts = append(parts, strconv.FormatUint(uint64(ip[i])<<8|uint64(ip[i+1]), 16))
	}
	return fmt.Sprintf("[%s]:%d", strings.Join(parts, ":"), port)
}

// portOf is the port of "host:port".
func portOf(addr string) string {
	i := strings.LastIndexByte(addr, ':')
	return addr[i+1:]
}

// namesNode reports whether an error text names the node at fault.
func namesNode(s string) bool {
	return strings.Contains(s, "node ") || strings.Contains(s, "master")
}
