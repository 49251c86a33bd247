package transport

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

const childEnv = "CAPE_TRANSPORT_TEST_CHILD"

// TestSlaveProcessDies runs rank 2 as a child process (this test binary)
// that joins, starts a multi-chunk message, and is killed in the middle of
// it: the master's Gather must fail promptly naming rank 2.
func TestSlaveProcessDies(t *testing.T) {
	if addr := os.Getenv(childEnv); addr != "" {
		childSlave(addr)
		return
	}
	if testing.Short() {
		t.Skip("starts a process")
	}
	cfg := testConfig(3)
	cfg.Broadcast = BroadcastStar // the child holds its write lock: no relay setup
	ln := listen(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestSlaveProcessDies$")
	cmd.Env = append(os.Environ(), childEnv+"="+ln.Addr().String())
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "ready") {
				ready <- sc.Text()
			}
		}
		close(ready)
	}()
	type slaveResult struct {
		s   *Slave
		err error
	}
	s1 := make(chan slaveResult, 1)
	go func() {
		s, err := Dial(context.Background(), ln.Addr().String(), 1, cfg)
		s1 <- slaveResult{s, err}
	}()
	m, err := NewMaster(ln, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	r := <-s1
	if r.err != nil {
		t.Fatal(r.err)
	}
	defer r.s.Close()
	if err := r.s.Send(Message{Kind: 16}); err != nil {
		t.Fatal(err)
	}
	gather := make(chan error, 1)
	go func() {
		_, err := m.Gather()
		gather <- err
	}()
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatal("child not ready")
	}
	killed := time.Now()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-gather:
		wantNodeErr(t, err, 2, ErrConnLost)
		t.Logf("%v, %v after the kill", err, time.Since(killed))
	case <-time.After(time.Second):
		t.Fatal("Gather still blocked 1s after the slave died")
	}
}

// childSlave joins as rank 2, writes part of a message and waits to be
// killed.
func childSlave(addr string) {
	cfg := testConfig(3)
	cfg.Broadcast = BroadcastStar
	s, err := Dial(context.Background(), addr, 2, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	c := s.c
	c.wmu.Lock() // no heartbeat in the middle of the frame
	var b bufConn
	fw := frameWriter{w: &b, timeout: time.Second, mac: c.fw.mac}
	fw.writeMessage(16, 1, make([]byte, 3*chunkLen))
	c.nc.Write(b.Bytes()[:chunkLen+1000])
	fmt.Println("ready")
	time.Sleep(time.Minute)
	os.Exit(3)
}
