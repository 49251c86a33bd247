package setup

import (
	"net"
	"testing"

	"github.com/cape-go/cape/delta"
)

func TestSendCompression(t *testing.T) {
	for _, c := range []struct {
		asked    delta.Compression
		loopback bool
		want     delta.Compression
	}{
		{delta.Auto, true, delta.None},
		{delta.Auto, false, delta.Auto},
		{delta.S2, true, delta.S2},
		{delta.Zstd, true, delta.Zstd},
		{delta.None, false, delta.None},
	} {
		if got := SendCompression(c.asked, c.loopback); got != c.want {
			t.Errorf("%v, loopback %v: %v, want %v", c.asked, c.loopback, got, c.want)
		}
	}
}

func TestLoopback(t *testing.T) {
	for _, c := range []struct {
		hostport string
		want     bool
	}{
		{"127.0.0.1:4000", true},
		{"127.3.2.1:4000", true},
		{"[::1]:4000", true},
		{"10.0.0.2:4000", false},
		{"[fe80::1]:4000", false},
		{"localhost:4000", false}, // names are not resolved
		{"127.0.0.1", false},      // no port: not an address
		{"", false},
	} {
		if got := LoopbackHost(c.hostport); got != c.want {
			t.Errorf("LoopbackHost(%q) = %v, want %v", c.hostport, got, c.want)
		}
	}
	for _, c := range []struct {
		addr net.Addr
		want bool
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}, true},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 1}, true},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 1}, false}, // every interface
		{&net.TCPAddr{IP: net.IPv4(192, 168, 1, 1), Port: 1}, false},
		{&net.UnixAddr{Name: "/tmp/s", Net: "unix"}, false},
	} {
		if got := LoopbackAddr(c.addr); got != c.want {
			t.Errorf("LoopbackAddr(%v) = %v, want %v", c.addr, got, c.want)
		}
	}
}
