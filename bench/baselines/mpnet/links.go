package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"syscall"
	"time"

	"github.com/cape-go/cape/bench/stencilkernel"
)

// setupTimeout bounds the start-up: every rank must be up by then.
const setupTimeout = 60 * time.Second

// links are a rank's connections: to the root (rank 0: one per slave,
// indexed by rank; a slave: root[0]) and to its neighbours rank-1 (up) and
// rank+1 (down), nil at the edges. Not safe for concurrent use, except that
// exchange writes to up and down concurrently.
type links struct {
	rank, size int
	root       []net.Conn
	up, down   net.Conn
}

// counter counts the bytes of the iterations.
type counter struct{ sent, recv int64 }

func (l *links) close() {
	for _, c := range append([]net.Conn{l.up, l.down}, l.root...) {
		if c != nil {
			c.Close()
		}
	}
}

// connect sets up the links of rank among size ranks, the root listening
// on addr.
func connect(addr string, rank, size int) (*links, error) {
	l := &links{rank: rank, size: size}
	var err error
	if rank == 0 {
		err = l.connectRoot(addr)
	} else {
		err = l.connectSlave(addr)
	}
	if err != nil {
		l.close()
		return nil, err
	}
	return l, nil
}

// connectRoot accepts every slave, which reports its rank and the port of
// its halo listener, answers each with the address of its upper neighbour,
// and accepts rank 1's halo connection.
func (l *links) connectRoot(addr string) error {
	l.root = make([]net.Conn, l.size)
	if l.size == 1 {
		return nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	defer ln.Close()
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("address %q: %w", addr, err)
	}
	halo, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return fmt.Errorf("listen for rank 1: %w", err)
	}
	defer halo.Close()
	deadline := time.Now().Add(setupTimeout)
	haloAddr := make([]string, l.size)
	haloAddr[0] = halo.Addr().String()
	for k := 1; k < l.size; k++ {
		conn, hdr, err := acceptIntro(ln, 8, deadline)
		if err != nil {
			return fmt.Errorf("accept a rank: %w", err)
		}
		r := int(binary.LittleEndian.Uint32(hdr[:4]))
		port := int(binary.LittleEndian.Uint32(hdr[4:]))
		if r < 1 || r >= l.size || l.root[r] != nil || port > 65535 {
			conn.Close()
			return fmt.Errorf("bad or duplicate rank %d (port %d)", r, port)
		}
		l.root[r] = conn
		ip := conn.RemoteAddr().(*net.TCPAddr).IP
		haloAddr[r] = net.JoinHostPort(ip.String(), strconv.Itoa(port))
	}
	for r := 1; r < l.size; r++ {
		a := haloAddr[r-1]
		msg := append(binary.LittleEndian.AppendUint16(nil, uint16(len(a))), a...)
		if _, err := l.root[r].Write(msg); err != nil {
			return fmt.Errorf("send rank %d its neighbour's address: %w", r, err)
		}
	}
	l.down, err = acceptRank(halo, 1, deadline)
	return err
}

// connectSlave dials the root, opens its halo listener (for rank+1) on the
// address the root sees it at, and links to rank-1 and rank+1.
func (l *links) connectSlave(addr string) error {
	deadline := time.Now().Add(setupTimeout)
	conn, err := dialRank(addr, l.rank, deadline)
	if err != nil {
		return fmt.Errorf("dial rank 0 at %s: %w", addr, err)
	}
	l.root = []net.Conn{conn}
	var halo net.Listener
	port := 0
	if l.rank < l.size-1 {
		ip := conn.LocalAddr().(*net.TCPAddr).IP
		if halo, err = net.Listen("tcp", net.JoinHostPort(ip.String(), "0")); err != nil {
			return fmt.Errorf("listen for rank %d: %w", l.rank+1, err)
		}
		defer halo.Close()
		port = halo.Addr().(*net.TCPAddr).Port
	}
	if _, err := conn.Write(binary.LittleEndian.AppendUint32(nil, uint32(port))); err != nil {
		return fmt.Errorf("send my port to rank 0: %w", err)
	}
	var hdr [2]byte
	if _, err := io.ReadFull(conn, hdr[:]); err != nil {
		return fmt.Errorf("receive rank %d's address: %w", l.rank-1, err)
	}
	up := make([]byte, binary.LittleEndian.Uint16(hdr[:]))
	if _, err := io.ReadFull(conn, up); err != nil {
		return fmt.Errorf("receive rank %d's address: %w", l.rank-1, err)
	}
	if l.up, err = dialRank(string(up), l.rank, deadline); err != nil {
		return fmt.Errorf("dial rank %d at %s: %w", l.rank-1, up, err)
	}
	if halo != nil {
		l.down, err = acceptRank(halo, l.rank+1, deadline)
	}
	return err
}

// magic starts every introduction, so that a stranger's connection to a
// listener (another program that dials a port it used to know) is told apart
// and dropped.
const magic = "HALO"

// dialRank connects to addr, retrying while nothing listens there yet, and
// introduces itself with magic and its rank (4 bytes, little-endian).
func dialRank(addr string, rank int, deadline time.Time) (net.Conn, error) {
	for {
		conn, err := net.Dial("tcp", addr)
		if err == nil {
			if _, err := conn.Write(binary.LittleEndian.AppendUint32([]byte(magic), uint32(rank))); err != nil {
				conn.Close()
				return nil, fmt.Errorf("send rank: %w", err)
			}
			return conn, nil
		}
		if !errors.Is(err, syscall.ECONNREFUSED) || time.Now().After(deadline) {
			return nil, err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// acceptRank accepts the connection of rank want on ln.
func acceptRank(ln net.Listener, want int, deadline time.Time) (net.Conn, error) {
	conn, hdr, err := acceptIntro(ln, 4, deadline)
	if err != nil {
		return nil, fmt.Errorf("accept rank %d: %w", want, err)
	}
	if r := int(binary.LittleEndian.Uint32(hdr)); r != want {
		conn.Close()
		return nil, fmt.Errorf("rank %d connected where rank %d was expected", r, want)
	}
	return conn, nil
}

// acceptIntro accepts connections on ln until one introduces itself with
// magic followed by n bytes, which it returns; connections that do not, in
// a second, are closed and ignored.
func acceptIntro(ln net.Listener, n int, deadline time.Time) (net.Conn, []byte, error) {
	ln.(*net.TCPListener).SetDeadline(deadline)
	for {
		conn, err := ln.Accept()
		if err != nil {
			return nil, nil, err
		}
		buf := make([]byte, len(magic)+n)
		conn.SetReadDeadline(time.Now().Add(time.Second))
		if _, err := io.ReadFull(conn, buf); err != nil || string(buf[:len(magic)]) != magic {
			conn.Close()
			continue
		}
		conn.SetReadDeadline(time.Time{})
		return conn, buf[len(magic):], nil
	}
}

// exchange sends the first and last rows this rank owns in v, [lo, hi), to
// its neighbours while receiving theirs into rows lo-1 and hi.
func (l *links) exchange(v []float64, size, lo, hi int, c *counter) error {
	row := func(i int) []byte { return asBytes(v[i*size : (i+1)*size]) }
	errc := make(chan error, 2)
	sends := 0
	send := func(conn net.Conn, i, to int) {
		sends++
		go func() {
			if _, err := conn.Write(row(i)); err != nil {
				errc <- fmt.Errorf("send row %d to rank %d: %w", i, to, err)
				return
			}
			errc <- nil
		}()
		c.sent += int64(size) * 8
	}
	if l.up != nil {
		send(l.up, lo, l.rank-1)
	}
	if l.down != nil {
		send(l.down, hi-1, l.rank+1)
	}
	var errs []error
	if l.up != nil {
		if _, err := io.ReadFull(l.up, row(lo-1)); err != nil {
			errs = append(errs, fmt.Errorf("receive row %d from rank %d: %w", lo-1, l.rank-1, err))
		}
		c.recv += int64(size) * 8
	}
	if l.down != nil {
		if _, err := io.ReadFull(l.down, row(hi)); err != nil {
			errs = append(errs, fmt.Errorf("receive row %d from rank %d: %w", hi, l.rank+1, err))
		}
		c.recv += int64(size) * 8
	}
	for ; sends > 0; sends-- {
		errs = append(errs, <-errc)
	}
	return errors.Join(errs...)
}

// reduceMax sends d to the root; the root returns the largest of every
// rank's d (the other ranks return their own).
func (l *links) reduceMax(d float64, c *counter) (float64, error) {
	var buf [8]byte
	if l.rank != 0 {
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(d))
		if _, err := l.root[0].Write(buf[:]); err != nil {
			return 0, fmt.Errorf("send diff to rank 0: %w", err)
		}
		c.sent += 8
		return d, nil
	}
	for r := 1; r < l.size; r++ {
		if _, err := io.ReadFull(l.root[r], buf[:]); err != nil {
			return 0, fmt.Errorf("receive diff from rank %d: %w", r, err)
		}
		c.recv += 8
		d = max(d, math.Float64frombits(binary.LittleEndian.Uint64(buf[:])))
	}
	return d, nil
}

// gather sends every slave's rows of u to the root.
func (l *links) gather(u []float64, size int) error {
	if l.rank != 0 {
		lo, hi := stencilkernel.Rows(size, l.rank, l.size)
		if _, err := l.root[0].Write(asBytes(u[lo*size : hi*size])); err != nil {
			return fmt.Errorf("send rows %d-%d to rank 0: %w", lo, hi, err)
		}
		return nil
	}
	for r := 1; r < l.size; r++ {
		lo, hi := stencilkernel.Rows(size, r, l.size)
		if _, err := io.ReadFull(l.root[r], asBytes(u[lo*size:hi*size])); err != nil {
			return fmt.Errorf("receive rows %d-%d from rank %d: %w", lo, hi, r, err)
		}
	}
	return nil
}

// finish ends the job: the root tells every slave it has everything, and a
// slave waits for that before closing, so no unread byte resets a
// connection under the root.
func (l *links) finish() error {
	var b [1]byte
	if l.rank == 0 {
		for r := 1; r < l.size; r++ {
			if _, err := l.root[r].Write(b[:]); err != nil {
				return fmt.Errorf("say goodbye to rank %d: %w", r, err)
			}
		}
		return nil
	}
	if _, err := io.ReadFull(l.root[0], b[:]); err != nil {
		return fmt.Errorf("wait for rank 0's goodbye: %w", err)
	}
	return nil
}
