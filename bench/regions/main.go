// Command regions measures the fixed cost of a CAPE parallel region: -k
// regions one after the other, each a parallel for over 64 iterations that
// writes one int64 each (64 int64s, one page, written every time), so that
// everything but the region's own machinery (start, monitor, create, gather,
// merge, broadcast, inject, stop) is negligible. `cape bench regions` runs it
// under cape run -n N and reports the time per region. -iters sets the
// iterations (and int64s) of each region: 0 writes nothing, so a region is
// its machinery alone; 512 per node or more gives each node pages of its
// own.
//
// It prints `regions k=K sum=S` on stdout (the same under go run and any
// cape run) and `regions: K regions in X.XXXs` on stderr.
//
// With -echo ADDR it runs no region: it connects to ADDR over TCP and
// writes back whatever it reads until the peer closes the connection, the
// other process of the loopback round trip that `cape bench regions`
// measures beside the regions (bench.ProcessRTT).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"time"
)

func main() {
	k := flag.Int("k", 3000, "number of regions")
	iters := flag.Int("iters", 64, "iterations (int64s written) of each region")
	echoAddr := flag.String("echo", "", "echo what arrives from this TCP address instead of running regions")
	flag.Parse()
	if *echoAddr != "" {
		if err := echo(*echoAddr); err != nil {
			fmt.Fprintf(os.Stderr, "regions: %v\n", err)
			os.Exit(1)
		}
		return
	}
	m := max(*iters, 0)
	a := make([]int64, m)
	start := time.Now()
	for r := 0; r < *k; r++ {
		//cape:parallel for schedule(static)
		for i := 0; i < m; i++ {
			a[i] = int64(r*m + i)
		}
	}
	elapsed := time.Since(start)
	var sum int64
	for _, x := range a {
		sum += x
	}
	fmt.Printf("regions k=%d sum=%d\n", *k, sum)
	fmt.Fprintf(os.Stderr, "regions: %d regions in %.6fs\n", *k, elapsed.Seconds())
}

// echo connects to addr and writes back what it reads until EOF.
func echo(addr string) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return fmt.Errorf("echo: %w", err)
	}
	defer c.Close()
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			if _, werr := c.Write(buf[:n]); werr != nil {
				return fmt.Errorf("echo: %w", werr)
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("echo: %w", err)
		}
	}
}
