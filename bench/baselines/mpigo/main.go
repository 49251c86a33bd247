package main

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/cape-go/cape/bench/kernel"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "mpigo: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	n := flag.Int("n", 512, "matrix size (n×n)")
	rank := flag.Int("rank", 0, "this process's rank; 0 is the root")
	size := flag.Int("size", 1, "number of ranks")
	addr := flag.String("addr", "127.0.0.1:0", "host:port rank 0 listens on and the others dial")
	gatherOnly := flag.Bool("gather-only", false, "gather C on rank 0 without sending it back to every rank")
	flag.Parse()
	if *n < 1 || *size < 1 || *rank < 0 || *rank >= *size {
		return fmt.Errorf("bad flags: -n %d -rank %d -size %d", *n, *rank, *size)
	}
	var conns []net.Conn // root: indexed by rank (conns[0] nil); slave: conns[0] to the root
	var err error
	if *rank == 0 {
		conns, err = accept(*addr, *size)
	} else {
		conns, err = dial(*addr, *rank)
	}
	if err != nil {
		return err
	}
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()

	nn := *n
	a := make([]int64, nn*nn)
	b := make([]int64, nn*nn)
	c := make([]int64, nn*nn)
	kernel.Fill(a, b)

	start := time.Now()
	lo, hi := kernel.Block(nn, *rank, *size)
	kernel.Multiply(a, b, c, nn, lo, hi)
	computed := time.Now()
	if *rank == 0 {
		if err := gather(conns, c, nn, *size); err != nil {
			return err
		}
		if !*gatherOnly {
			if err := each(conns, func(conn net.Conn) error {
				_, err := conn.Write(asBytes(c))
				return err
			}); err != nil {
				return fmt.Errorf("broadcast C: %w", err)
			}
		}
	} else {
		if _, err := conns[0].Write(asBytes(c[lo*nn : hi*nn])); err != nil {
			return fmt.Errorf("send rows %d-%d: %w", lo, hi, err)
		}
		if !*gatherOnly {
			if _, err := io.ReadFull(conns[0], asBytes(c)); err != nil {
				return fmt.Errorf("receive C: %w", err)
			}
		}
	}
	elapsed := time.Since(start)

	if *rank == 0 || !*gatherOnly {
		fmt.Printf("matmul n=%d checksum=%016x\n", nn, kernel.Checksum(c))
	}
	if *rank == 0 {
		fmt.Fprintf(os.Stderr, "matmul: parallel part %.3fs on %d rank(s)\n", elapsed.Seconds(), *size)
		fmt.Fprintf(os.Stderr, "mpigo: compute %.6fs, communication %.6fs\n", computed.Sub(start).Seconds(), time.Since(computed).Seconds())
	}
	return nil
}

// gather receives every slave's block of rows straight into c.
func gather(conns []net.Conn, c []int64, n, size int) error {
	return each(conns, func(conn net.Conn) error {
		r := rankOf(conns, conn)
		lo, hi := kernel.Block(n, r, size)
		if _, err := io.ReadFull(conn, asBytes(c[lo*n:hi*n])); err != nil {
			return fmt.Errorf("receive rows %d-%d from rank %d: %w", lo, hi, r, err)
		}
		return nil
	})
}

func rankOf(conns []net.Conn, conn net.Conn) int {
	for r, c := range conns {
		if c == conn {
			return r
		}
	}
	return -1
}

// each runs f on every slave connection concurrently and joins the errors.
func each(conns []net.Conn, f func(net.Conn) error) error {
	errc := make(chan error, len(conns))
	k := 0
	for _, conn := range conns {
		if conn == nil {
			continue
		}
		k++
		go func() { errc <- f(conn) }()
	}
	var errs []error
	for ; k > 0; k-- {
		errs = append(errs, <-errc)
	}
	return errors.Join(errs...)
}

// accept listens on addr and accepts one connection from each slave; a slave
// introduces itself with its rank (4 bytes, little-endian).
func accept(addr string, size int) ([]net.Conn, error) {
	conns := make([]net.Conn, size)
	if size == 1 {
		return conns, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	defer ln.Close()
	ln.(*net.TCPListener).SetDeadline(time.Now().Add(60 * time.Second))
	for k := 1; k < size; k++ {
		conn, err := ln.Accept()
		if err != nil {
			return nil, fmt.Errorf("accept rank: %w", err)
		}
		var hdr [4]byte
		if _, err := io.ReadFull(conn, hdr[:]); err != nil {
			return nil, fmt.Errorf("read rank: %w", err)
		}
		r := int(binary.LittleEndian.Uint32(hdr[:]))
		if r < 1 || r >= size || conns[r] != nil {
			return nil, fmt.Errorf("bad or duplicate rank %d", r)
		}
		conns[r] = conn
	}
	return conns, nil
}

// dial connects to the root, retrying while it is not listening yet.
func dial(addr string, rank int) ([]net.Conn, error) {
	deadline := time.Now().Add(60 * time.Second)
	for {
		conn, err := net.Dial("tcp", addr)
		if err == nil {
			var hdr [4]byte
			binary.LittleEndian.PutUint32(hdr[:], uint32(rank))
			if _, err := conn.Write(hdr[:]); err != nil {
				conn.Close()
				return nil, fmt.Errorf("send rank: %w", err)
			}
			return []net.Conn{conn}, nil
		}
		if !errors.Is(err, syscall.ECONNREFUSED) || time.Now().After(deadline) {
			return nil, fmt.Errorf("dial rank 0 at %s: %w", addr, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
