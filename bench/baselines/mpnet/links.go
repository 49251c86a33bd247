package mpnet

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
)

// setupTimeout bounds the start-up: every rank must be up by then.
const setupTimeout = 60 * time.Second

// Links are a rank's connections: to the root (rank 0: one per slave,
// indexed by rank; a slave: root[0]) and to its neighbours rank-1 (up) and
// rank+1 (down), nil at the edges. Not safe for concurrent use, except that
// Halo writes to up and down concurrently.
type Links struct {
	rank, size int
	root       []net.Conn
	up, down   net.Conn
}

// Counter counts the bytes of the iterations.
type Counter struct{ Sent, Recv int64 }

// Rank returns this process's rank; Size the number of ranks.
func (l *Links) Rank() int { return l.rank }

// Size returns the number of ranks.
func (l *Links) Size() int { return l.size }

// Close closes every connection.
func (l *Links) Close() {
	for _, c := range append([]net.Conn{l.up, l.down}, l.root...) {
		if c != nil {
			c.Close()
		}
	}
}

// Connect sets up the links of rank among size ranks, the root listening
// on addr.
func Connect(addr string, rank, size int) (*Links, error) {
	if size < 1 || rank < 0 || rank >= size {
		return nil, fmt.Errorf("rank %d of %d: out of range", rank, size)
	}
	l := &Links{rank: rank, size: size}
	var err error
	if rank == 0 {
		err = l.connectRoot(addr)
	} else {
		err = l.connectSlave(addr)
	}
	if err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// connectRoot accepts every slave, which reports its rank and the port of
// its halo listener, answers each with the address of its upper neighbour,
// and accepts rank 1's halo connection.
func (l *Links) connectRoot(addr string) error {
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
func (l *Links) connectSlave(addr string) error {
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

// Halo sends toUp to rank-1 and toDown to rank+1 while receiving rank-1's
// message into fromUp and rank+1's into fromDown (concurrently, so no
// ordering can deadlock); the slices of a missing neighbour are ignored.
func (l *Links) Halo(toUp, fromUp, toDown, fromDown []byte, c *Counter) error {
	errc := make(chan error, 2)
	sends := 0
	send := func(conn net.Conn, b []byte, to int) {
		sends++
		go func() {
			if _, err := conn.Write(b); err != nil {
				errc <- fmt.Errorf("send %d bytes to rank %d: %w", len(b), to, err)
				return
			}
			errc <- nil
		}()
		c.Sent += int64(len(b))
	}
	if l.up != nil {
		send(l.up, toUp, l.rank-1)
	}
	if l.down != nil {
		send(l.down, toDown, l.rank+1)
	}
	var errs []error
	recv := func(conn net.Conn, b []byte, from int) {
		if _, err := io.ReadFull(conn, b); err != nil {
			errs = append(errs, fmt.Errorf("receive %d bytes from rank %d: %w", len(b), from, err))
		}
		c.Recv += int64(len(b))
	}
	if l.up != nil {
		recv(l.up, fromUp, l.rank-1)
	}
	if l.down != nil {
		recv(l.down, fromDown, l.rank+1)
	}
	for ; sends > 0; sends-- {
		errs = append(errs, <-errc)
	}
	return errors.Join(errs...)
}

// Reduce combines one 8-byte word of every rank on the root with f, in rank
// order (the root's own word first), and returns the result on the root;
// the other ranks send theirs and return it unchanged.
func (l *Links) Reduce(w uint64, f func(a, b uint64) uint64, c *Counter) (uint64, error) {
	var buf [8]byte
	if l.rank != 0 {
		binary.LittleEndian.PutUint64(buf[:], w)
		if _, err := l.root[0].Write(buf[:]); err != nil {
			return 0, fmt.Errorf("send a partial to rank 0: %w", err)
		}
		c.Sent += 8
		return w, nil
	}
	for r := 1; r < l.size; r++ {
		if _, err := io.ReadFull(l.root[r], buf[:]); err != nil {
			return 0, fmt.Errorf("receive a partial from rank %d: %w", r, err)
		}
		c.Recv += 8
		w = f(w, binary.LittleEndian.Uint64(buf[:]))
	}
	return w, nil
}

// Allreduce is Reduce followed by the root sending the result to every
// rank: every rank returns the same word.
func (l *Links) Allreduce(w uint64, f func(a, b uint64) uint64, c *Counter) (uint64, error) {
	w, err := l.Reduce(w, f, c)
	if err != nil {
		return 0, err
	}
	var buf [8]byte
	if l.rank != 0 {
		if _, err := io.ReadFull(l.root[0], buf[:]); err != nil {
			return 0, fmt.Errorf("receive the reduction from rank 0: %w", err)
		}
		c.Recv += 8
		return binary.LittleEndian.Uint64(buf[:]), nil
	}
	binary.LittleEndian.PutUint64(buf[:], w)
	for r := 1; r < l.size; r++ {
		if _, err := l.root[r].Write(buf[:]); err != nil {
			return 0, fmt.Errorf("send the reduction to rank %d: %w", r, err)
		}
		c.Sent += 8
	}
	return w, nil
}

// MaxFloat64 combines two words holding float64 bits into the larger.
func MaxFloat64(a, b uint64) uint64 {
	return math.Float64bits(max(math.Float64frombits(a), math.Float64frombits(b)))
}

// SumInt64 combines two words holding int64s into their (wrapping) sum,
// which is associative: any order of ranks gives the same bits.
func SumInt64(a, b uint64) uint64 { return uint64(int64(a) + int64(b)) }

// Gather sends mine to the root; the root receives every other rank's
// block into part(rank). It is not counted: the benchmarks time it but
// report the bytes of the iterations.
func (l *Links) Gather(mine []byte, part func(rank int) []byte) error {
	if l.rank != 0 {
		if _, err := l.root[0].Write(mine); err != nil {
			return fmt.Errorf("send %d bytes to rank 0: %w", len(mine), err)
		}
		return nil
	}
	for r := 1; r < l.size; r++ {
		b := part(r)
		if _, err := io.ReadFull(l.root[r], b); err != nil {
			return fmt.Errorf("receive %d bytes from rank %d: %w", len(b), r, err)
		}
	}
	return nil
}

// Finish ends the job: the root tells every slave it has everything, and a
// slave waits for that before closing, so no unread byte resets a
// connection under the root.
func (l *Links) Finish() error {
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

// Allgather sends mine to the root, which receives every other rank's
// block into part(rank), then sends all of them, whole, to every rank,
// which receives it into whole (where its own block and the root's
// blocks already are).
func (l *Links) Allgather(mine []byte, part func(rank int) []byte, whole []byte, c *Counter) error {
	if l.rank != 0 {
		if _, err := l.root[0].Write(mine); err != nil {
			return fmt.Errorf("send %d bytes to rank 0: %w", len(mine), err)
		}
		c.Sent += int64(len(mine))
		if _, err := io.ReadFull(l.root[0], whole); err != nil {
			return fmt.Errorf("receive %d bytes from rank 0: %w", len(whole), err)
		}
		c.Recv += int64(len(whole))
		return nil
	}
	for r := 1; r < l.size; r++ {
		b := part(r)
		if _, err := io.ReadFull(l.root[r], b); err != nil {
			return fmt.Errorf("receive %d bytes from rank %d: %w", len(b), r, err)
		}
		c.Recv += int64(len(b))
	}
	for r := 1; r < l.size; r++ {
		if _, err := l.root[r].Write(whole); err != nil {
			return fmt.Errorf("send %d bytes to rank %d: %w", len(whole), r, err)
		}
		c.Sent += int64(len(whole))
	}
	return nil
}
