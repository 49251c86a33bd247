//go:build !unix

package transport

import "net"

// peekFull reads the first len(b) bytes that arrive on nc into b and
// returns a connection that reads them again first, with the bytes it saw
// (len(b) unless err is set) and the error.
func peekFull(nc net.Conn, b []byte) (net.Conn, int, error) {
	return readFull(nc, b)
}

// peekable: a routed connection is handed over wrapped (replayConn), not
// as accepted.
const peekable = false
