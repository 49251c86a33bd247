package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"slices"
	"time"
)

// rttMessage is the size of the message the round-trip measurements
// bounce: about what a region's smallest messages carry (a header and a
// few words).
const rttMessage = 64

// RTT is a measured TCP round trip: the median, fastest and slowest of
// the round trips timed.
type RTT struct{ Median, Fastest, Slowest time.Duration }

// LoopbackRTT measures the round trip of a small message over loopback
// TCP between two goroutines of this process: n times, one writes
// rttMessage bytes and waits for them to come back from the other, which
// echoes them.
func LoopbackRTT(n int) (RTT, error) {
	return measureRTT(n, func(addr string) (<-chan error, error) {
		done := make(chan error, 1)
		go func() { done <- echoFrom(addr) }()
		return done, nil
	}, pingPong)
}

// ProcessRTT is LoopbackRTT with the echo in another process, as a region's
// messages go between the processes of the nodes: the command argv with
// the arguments -echo ADDR added, which connects to ADDR and echoes what it
// reads until EOF (bench/regions has that flag). `cape bench regions`
// measures it right after each job, so that the time per region stands
// beside the round trip measured under the same load.
func ProcessRTT(ctx context.Context, argv []string, n int) (RTT, error) {
	if len(argv) == 0 {
		return RTT{}, errors.New("loopback round trip: no echo command")
	}
	return measureRTT(n, func(addr string) (<-chan error, error) { return startEcho(ctx, argv, addr) }, pingPong)
}

// ErrNoCPUPair is ProcessRTTAcross's error where two processes cannot be
// placed on two CPUs (one CPU, or no CPU affinity outside Linux).
var ErrNoCPUPair = errors.New("no two CPUs to place the processes on")

// ProcessRTTAcross is ProcessRTT with the two processes on two different
// CPUs: the echo's whole process on one, and on the other the thread that
// times the round trips with blocking system calls, as the processes of two
// busy nodes sit. A kernel that wakes a sleeping task on the waker's CPU
// runs the two ends of an unpinned ping-pong on one CPU, where a wake-up is
// a context switch; on two CPUs each message wakes another CPU, which on a
// virtual machine can cost several times that. It needs Linux and two CPUs
// this process may run on.
func ProcessRTTAcross(ctx context.Context, argv []string, n int) (RTT, error) {
	if len(argv) == 0 {
		return RTT{}, errors.New("round trip across CPUs: no echo command")
	}
	return acrossCPUs(func(pinSelf func() error) (RTT, error) {
		return measureRTT(n, func(addr string) (<-chan error, error) {
			done, err := startEcho(ctx, argv, addr)
			if err == nil {
				err = pinSelf()
			}
			return done, err
		}, blockingPingPong)
	})
}

// startEcho starts argv with -echo addr added; the channel receives its
// end.
func startEcho(ctx context.Context, argv []string, addr string) (<-chan error, error) {
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, argv[0], append(argv[1:len(argv):len(argv)], "-echo", addr)...)
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		if err != nil {
			err = fmt.Errorf("%s -echo: %w\n%s", argv[0], err, tail(stderr.String(), 500))
		}
		done <- err
	}()
	return done, nil
}

// measureRTT listens on loopback, has start make the echo that connects to
// it, and times n round trips with pp; start's channel receives the echo's
// end, which the connection's close causes.
func measureRTT(n int, start func(addr string) (done <-chan error, err error), pp func(net.Conn, int) ([]time.Duration, error)) (RTT, error) {
	if n < 1 {
		return RTT{}, fmt.Errorf("loopback round trip: %d round trips: want ≥ 1", n)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return RTT{}, fmt.Errorf("loopback round trip: %w", err)
	}
	defer ln.Close()
	done, err := start(ln.Addr().String())
	if err != nil {
		return RTT{}, fmt.Errorf("loopback round trip: start the echo: %w", err)
	}
	// An echo that ends early closes the listener: Accept fails at once.
	var echoErr error
	ended := make(chan struct{})
	go func() {
		echoErr = <-done
		ln.Close()
		close(ended)
	}()
	times, err := accepted(ln, n, pp)
	ln.Close() // an echo connected but not accepted gets a reset
	<-ended
	if err == nil {
		err = echoErr
	}
	if err != nil {
		return RTT{}, fmt.Errorf("loopback round trip: %w", err)
	}
	slices.Sort(times)
	return RTT{Median: times[len(times)/2], Fastest: times[0], Slowest: times[len(times)-1]}, nil
}

// accepted takes the echo's connection from ln (within a few seconds) and
// times n round trips on it with pp, then closes it.
func accepted(ln net.Listener, n int, pp func(net.Conn, int) ([]time.Duration, error)) ([]time.Duration, error) {
	if tl, ok := ln.(*net.TCPListener); ok {
		if err := tl.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
			return nil, err
		}
	}
	c, err := ln.Accept()
	if err != nil {
		return nil, fmt.Errorf("accept the echo's connection: %w", err)
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(time.Minute)); err != nil {
		return nil, err
	}
	return pp(c, n)
}

// echoFrom connects to addr and writes back what it reads until EOF.
func echoFrom(addr string) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return fmt.Errorf("echo: %w", err)
	}
	defer c.Close()
	var buf [rttMessage]byte
	for {
		if _, err := io.ReadFull(c, buf[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("echo: %w", err)
		}
		if _, err := c.Write(buf[:]); err != nil {
			return fmt.Errorf("echo: %w", err)
		}
	}
}

// pingPong times n round trips of rttMessage bytes on c.
func pingPong(c net.Conn, n int) ([]time.Duration, error) {
	var out, in [rttMessage]byte
	times := make([]time.Duration, 0, n)
	for i := range n {
		out[0] = byte(i)
		t := time.Now()
		if _, err := c.Write(out[:]); err != nil {
			return nil, err
		}
		if _, err := io.ReadFull(c, in[:]); err != nil {
			return nil, err
		}
		times = append(times, time.Since(t))
		if in != out {
			return nil, fmt.Errorf("round trip %d: echoed bytes differ", i)
		}
	}
	return times, nil
}
