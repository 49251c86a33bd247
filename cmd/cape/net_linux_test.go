//go:build linux

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestHardeningOnePort runs jobs on 3 nodes whose master opens services
// beside the job's connection (the lazy page server; the input stream)
// and checks, by sampling the master's sockets in /proc while it runs,
// that it never listens on any port but the job's (--master-port): a
// firewall that opens that one port is enough. The output is go run's.
func TestHardeningOnePort(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Run("lazy", func(t *testing.T) {
		needLazyPages(t)
		bin := sharedBuild(t, "../../examples/stencil")
		args := []string{"-n", "256", "-iters", "300"}
		want := goRun(t, "../../examples/stencil", args...)
		out, errText := onePortRun(t, bin, []string{"--transfer", "lazy", "--stats"}, args, nil)
		if !strings.Contains(errText, "bytes of pages fetched") {
			t.Errorf("lazy transfer was not used:\n%s", errText)
		}
		if out != want {
			t.Errorf("printed %q, go run %q", out, want)
		}
	})
	t.Run("stdin", func(t *testing.T) {
		in, _, goCmd := stdinsumInput(t)
		bin := sharedBuild(t, "./testdata/stdinsum")
		out, _ := onePortRun(t, bin, nil, nil, []byte(in))
		if out != goCmd {
			t.Errorf("printed %q, go run %q", out, goCmd)
		}
	})
}

// onePortRun runs bin on 3 nodes (its standard input fed from a pipe, in
// pieces, when in is not nil) while it samples the master's listening
// sockets: it fails the test if the master listened on a port other than
// the job's, or was never seen.
func onePortRun(t *testing.T, bin string, flags, args []string, in []byte) (string, string) {
	t.Helper()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var seen, samples int
	others := map[int]bool{}
	masterPort := -1
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
			pid, port := findMaster(bin)
			if pid == 0 {
				continue
			}
			ports := listeningPorts(pid)
			if port < 0 {
				// The slaves are not started yet: nothing of the
				// job's listens but the job's port, which is ports.
				if len(ports) > 1 {
					for _, p := range ports {
						others[p] = true
					}
				}
				continue
			}
			seen++
			masterPort = port
			for _, p := range ports {
				samples++
				if p != port {
					others[p] = true
				}
			}
		}
	}()
	stdin := os.Stdin
	if in != nil {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		go func() {
			defer w.Close()
			for len(in) > 0 {
				k := min(len(in), 32<<10)
				if _, err := w.Write(in[:k]); err != nil {
					return
				}
				in = in[k:]
				time.Sleep(5 * time.Millisecond)
			}
		}()
		stdin = r
	}
	out, errText, err := capeRunStdin(stdin, "3", flags, bin, args)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("cape run: %v\n%s", err, errText)
	}
	if seen == 0 {
		t.Fatalf("never saw the master's process (%s with %s=0)", bin, "CAPE_RANK")
	}
	if len(others) > 0 {
		t.Errorf("the master listened on port(s) %v besides the job's %d (%d samples)", others, masterPort, seen)
	}
	t.Logf("master seen in %d samples, listening on its port in %d", seen, samples)
	return out, errText
}

// findMaster returns the pid of a process running bin as the master
// (CAPE_RANK=0), or 0, and the job's port: the one the slaves dial (their
// CAPE_MASTER), or -1 if none was seen.
func findMaster(bin string) (pid, port int) {
	port = -1
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, port
	}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err != nil || strings.TrimSuffix(exe, " (deleted)") != bin {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		for _, v := range bytes.Split(env, []byte{0}) {
			s := string(v)
			if s == "CAPE_RANK=0" {
				pid = p
			}
			if addr, ok := strings.CutPrefix(s, "CAPE_MASTER="); ok {
				if i := strings.LastIndexByte(addr, ':'); i >= 0 {
					port, _ = strconv.Atoi(addr[i+1:])
				}
			}
		}
	}
	return pid, port
}

// listeningPorts returns the ports of the TCP sockets pid listens on
// (cut_test's socketInodes and tcpSockets read /proc).
func listeningPorts(pid int) []int {
	inodes := map[string]bool{}
	for _, ino := range socketInodes(pid) {
		inodes[ino] = true
	}
	var ports []int
	for _, s := range tcpSockets() {
		if s.state == "0A" && inodes[s.inode] {
			p, _ := strconv.Atoi(portOf(s.local))
			ports = append(ports, p)
		}
	}
	return ports
}
