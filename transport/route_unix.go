//go:build unix

package transport

import (
	"io"
	"net"
	"syscall"
)

// peekFull reads the first len(b) bytes that arrive on nc into b without
// consuming them (MSG_PEEK), so that the service handed nc reads them
// again and the connection stays a *net.TCPConn (rawIO's fast path). It
// returns nc, the bytes it saw (len(b) unless err is set: the peer closed
// the connection, or the read deadline passed), and the error.
func peekFull(nc net.Conn, b []byte) (net.Conn, int, error) {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return readFull(nc, b)
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return readFull(nc, b)
	}
	var n int
	var perr error
	err = rc.Read(func(fd uintptr) bool {
		k, _, e := syscall.Recvfrom(int(fd), b, syscall.MSG_PEEK)
		for e == syscall.EINTR {
			k, _, e = syscall.Recvfrom(int(fd), b, syscall.MSG_PEEK)
		}
		switch {
		case e == syscall.EAGAIN:
			return false // wait for data
		case e != nil:
			perr = e
			return true
		case k == 0:
			perr = io.EOF
			return true
		}
		n = k
		// Fewer bytes than wanted: wait for more (the poller wakes on
		// their arrival); the peer's closing ends the wait as EOF.
		return k >= len(b)
	})
	if err == nil {
		err = perr
	}
	if n < len(b) && err == nil {
		err = io.ErrUnexpectedEOF
	}
	if n >= len(b) {
		err = nil
	}
	return nc, n, err
}

// peekable: a routed connection is handed over as accepted.
const peekable = true
