package cape

import (
	"net"
	"testing"
)

// TestOneHost checks the master's test of self replicas: loopback
// addresses and this machine's own are one host; any other address, or
// one that is not an IP address, is not.
func TestOneHost(t *testing.T) {
	for _, c := range []struct {
		hosts []string
		want  bool
	}{
		{nil, true},
		{[]string{"127.0.0.1:4000", "127.0.0.1:4001"}, true},
		{[]string{"[::1]:4000"}, true},
		{[]string{"127.0.0.1:4000", "192.0.2.7:4001"}, false}, // TEST-NET-1: never this machine's
		{[]string{"node7:4000"}, false},
		{[]string{"127.0.0.1"}, false},
	} {
		if got := oneHost(c.hosts); got != c.want {
			t.Errorf("oneHost(%q) = %v, want %v", c.hosts, got, c.want)
		}
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatalf("interface addresses: %v", err)
	}
	for _, a := range addrs {
		if in, ok := a.(*net.IPNet); ok && !in.IP.IsLoopback() && in.IP.To4() != nil {
			if hp := net.JoinHostPort(in.IP.String(), "4000"); !oneHost([]string{"127.0.0.1:1", hp}) {
				t.Errorf("oneHost: this machine's address %s is not one host with loopback", hp)
			}
			return
		}
	}
}
