package setup

import (
	"net"

	"github.com/cape-go/cape/delta"
)

// SendCompression is the compression of a message between nodes: auto
// means none when every peer is on this machine (loopback), where sending
// bytes costs less than compressing them, and delta's measured choice
// otherwise.
func SendCompression(asked delta.Compression, loopback bool) delta.Compression {
	if asked == delta.Auto && loopback {
		return delta.None
	}
	return asked
}

// LoopbackAddr reports whether a, the master's listening address, is a
// loopback address: then every peer is on this machine.
func LoopbackAddr(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// LoopbackHost reports whether hostport, the master's address that a
// slave dials, names a loopback IP address. A host name is not resolved:
// it is not loopback.
func LoopbackHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
