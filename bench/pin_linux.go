package bench

import (
	"errors"
	"fmt"
	"net"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// acrossCPUs runs measure on a thread of its own pinned to one CPU, which
// the echo's process started from it inherits; pinSelf, called once the
// echo has started, moves the thread to a second CPU. The thread's
// affinity is restored before it is given back to the runtime.
func acrossCPUs(measure func(pinSelf func() error) (RTT, error)) (RTT, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return RTT{}, fmt.Errorf("round trip across CPUs: %w", err)
	}
	var cpus []int
	for c := 0; c < len(old)*64 && len(cpus) < 2; c++ {
		if old.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	if len(cpus) < 2 {
		return RTT{}, fmt.Errorf("round trip across CPUs: %w (this process may run on one CPU only)", ErrNoCPUPair)
	}
	defer unix.SchedSetaffinity(0, &old)
	if err := pinTo(cpus[0]); err != nil {
		return RTT{}, err
	}
	return measure(func() error { return pinTo(cpus[1]) })
}

// pinTo binds the calling thread to cpu.
func pinTo(cpu int) error {
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("round trip across CPUs: bind to CPU %d: %w", cpu, err)
	}
	return nil
}

// blockingPingPong is pingPong with blocking reads and writes on the
// calling thread (a copy of c's descriptor), so that no other thread of
// the runtime's takes part in a round trip.
func blockingPingPong(c net.Conn, n int) ([]time.Duration, error) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return nil, fmt.Errorf("round trip across CPUs: %T is not a TCP connection", c)
	}
	f, err := tc.File()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fd := int(f.Fd()) // blocking, as Fd leaves it
	var out, in [rttMessage]byte
	times := make([]time.Duration, 0, n)
	for i := range n {
		out[0] = byte(i)
		t := time.Now()
		if err := writeFull(fd, out[:]); err != nil {
			return nil, err
		}
		if err := readFull(fd, in[:]); err != nil {
			return nil, err
		}
		times = append(times, time.Since(t))
		if in != out {
			return nil, fmt.Errorf("round trip %d: echoed bytes differ", i)
		}
	}
	return times, nil
}

func writeFull(fd int, b []byte) error {
	for len(b) > 0 {
		k, err := unix.Write(fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("write: %w", err)
		}
		b = b[k:]
	}
	return nil
}

func readFull(fd int, b []byte) error {
	for len(b) > 0 {
		k, err := unix.Read(fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("read: %w", err)
		}
		if k == 0 {
			return errors.New("read: the echo closed the connection")
		}
		b = b[k:]
	}
	return nil
}
