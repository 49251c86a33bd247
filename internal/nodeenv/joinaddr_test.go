package nodeenv

import (
	"errors"
	"net"
	"testing"
)

// TestJoinAddr checks the address written to the join file: the
// listener's own, but for a listener on every interface, which joining
// nodes reach by the host's name (or localhost when it has none).
func TestJoinAddr(t *testing.T) {
	named := func() (string, error) { return "node7", nil }
	nameless := func() (string, error) { return "", errors.New("no name") }
	for _, c := range []struct {
		name     string
		addr     net.Addr
		hostname func() (string, error)
		want     string
	}{
		{"loopback", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4000}, named, "127.0.0.1:4000"},
		{"one interface", &net.TCPAddr{IP: net.IPv4(10, 1, 2, 3), Port: 5}, named, "10.1.2.3:5"},
		{"ipv6 address", &net.TCPAddr{IP: net.ParseIP("fe80::1"), Port: 9}, named, "[fe80::1]:9"},
		{"every ipv4 interface", &net.TCPAddr{IP: net.IPv4zero, Port: 4000}, named, "node7:4000"},
		{"every ipv6 interface", &net.TCPAddr{IP: net.IPv6unspecified, Port: 80}, named, "node7:80"},
		{"no ip: as given", &net.TCPAddr{Port: 81}, named, ":81"},
		{"no host name", &net.TCPAddr{IP: net.IPv4zero, Port: 4000}, nameless, "localhost:4000"},
		{"not tcp", &net.UnixAddr{Name: "/tmp/s", Net: "unix"}, named, "/tmp/s"},
	} {
		if got := JoinAddr(c.addr, c.hostname); got != c.want {
			t.Errorf("%s: JoinAddr(%v) = %q, want %q", c.name, c.addr, got, c.want)
		}
	}
}
