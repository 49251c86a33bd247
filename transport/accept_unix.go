//go:build unix

package transport

import (
	"net"
	"syscall"
)

// hasInput reports whether bytes from the peer wait, unread, on nc: a peer
// that spoke although the goroutine running its handshake has not read
// yet (a loaded machine under a flood).
func hasInput(nc net.Conn) bool {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	var b [1]byte
	got := false
	_ = rc.Control(func(fd uintptr) {
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		got = err == nil && n > 0
	})
	return got
}
