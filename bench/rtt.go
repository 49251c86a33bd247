package bench

import (
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"time"
)

// rttMessage is the size of the message LoopbackRTT bounces: about what a
// region's smallest messages carry (a header and a few words).
const rttMessage = 64

// LoopbackRTT measures the round trip of a small message over TCP on this
// machine: n times, one goroutine writes rttMessage bytes on a loopback
// connection and waits for them to come back from another goroutine, which
// echoes them. It returns the median round trip, the fastest and the
// slowest. `cape bench regions` measures it right after each job, so that
// the time per region stands beside the network's own round trip measured
// under the same load.
func LoopbackRTT(n int) (median, fastest, slowest time.Duration, err error) {
	if n < 1 {
		return 0, 0, 0, fmt.Errorf("loopback round trip: %d round trips: want ≥ 1", n)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, 0, 0, fmt.Errorf("loopback round trip: %w", err)
	}
	defer ln.Close()
	echoed := make(chan error, 1)
	go func() { echoed <- echo(ln) }()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		return 0, 0, 0, fmt.Errorf("loopback round trip: %w", err)
	}
	times, err := pingPong(c, n)
	c.Close()
	if eerr := <-echoed; err == nil && eerr != nil {
		err = eerr
	}
	if err != nil {
		return 0, 0, 0, fmt.Errorf("loopback round trip: %w", err)
	}
	slices.Sort(times)
	return times[len(times)/2], times[0], times[len(times)-1], nil
}

// echo accepts one connection from ln and writes back what it reads until
// the peer closes it.
func echo(ln net.Listener) error {
	c, err := ln.Accept()
	if err != nil {
		return err
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
