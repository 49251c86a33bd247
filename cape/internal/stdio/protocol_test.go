package stdio

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/cape-go/cape/transport"
)

// TestAddr checks the input server's address: the job's on port 0,
// else the master's host on the port, IPv6 included.
func TestAddr(t *testing.T) {
	for _, tc := range []struct {
		master string
		port   uint16
		want   string
		ok     bool
	}{
		{"10.0.0.1:7000", 0, "10.0.0.1:7000", true},
		{"10.0.0.1:7000", 7001, "10.0.0.1:7001", true},
		{"[::1]:7000", 7001, "[::1]:7001", true},
		{"node-a:7000", 9, "node-a:9", true},
		{"no-port", 0, "no-port", true},
		{"no-port", 7001, "", false},
	} {
		got, err := Addr(tc.master, tc.port)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("Addr(%q, %d) = %q, %v; want %q (ok %v)", tc.master, tc.port, got, err, tc.want, tc.ok)
		}
	}
}

// TestConfig checks the input connection's configuration: its own job
// id, the kinds' limits, and --timeout setting every timeout (a slave
// paused longer than the default write timeout must not lose its input).
func TestConfig(t *testing.T) {
	tok := make([]byte, 32)
	for _, d := range []time.Duration{0, time.Second, 40 * time.Second} {
		c := Config(tok, 0x5eed, 4, d)
		if c.JobID != JobID(0x5eed) || c.JobID == 0x5eed || c.Size != 4 || !bytes.Equal(c.Token, tok) || c.MaxFrame != Chunk {
			t.Fatalf("Config(%v) = %+v", d, c)
		}
		if c.KindLimits[KindData] != Chunk || c.KindLimits[KindEnd] != 8 || c.KindLimits[KindAck] != 8 {
			t.Fatalf("Config(%v) limits %v", d, c.KindLimits)
		}
		if d == 0 {
			if c.PeerTimeout != 0 || c.IOTimeout != 0 || c.HandshakeTimeout != 0 {
				t.Fatalf("Config without --timeout sets timeouts %v, %v, %v; want the transport's defaults", c.PeerTimeout, c.IOTimeout, c.HandshakeTimeout)
			}
			continue
		}
		if c.PeerTimeout != d || c.IOTimeout != d || c.HandshakeTimeout < d {
			t.Fatalf("input connection timeouts: peer %v, write %v, handshake %v; want the job's %v", c.PeerTimeout, c.IOTimeout, c.HandshakeTimeout, d)
		}
	}
	if KindData < transport.MinKind || KindAck == KindEnd || KindData == KindEnd {
		t.Fatalf("stream kinds %d, %d, %d", KindData, KindEnd, KindAck)
	}
}

// TestErrorsNameTheNode checks how a failed stream is named: on the
// master, a node error about the slave and its stream (the transport's
// rank and address kept); on a slave, its own input cut, never blaming
// the master.
func TestErrorsNameTheNode(t *testing.T) {
	lost := &transport.NodeError{Rank: 3, Addr: "10.0.0.3:1", Op: "send", Err: transport.ErrConnLost}
	var ne *transport.NodeError
	for _, tc := range []struct {
		err, cause error
		rank       int
		want       string
	}{
		{lost, transport.ErrConnLost, 3, "node 3 (10.0.0.3:1): standard input stream: send: connection lost"},
		{ErrProtocol, ErrProtocol, 2, "node 2 (-): standard input stream: recv: input stream protocol"},
	} {
		err := nodeError(2, tc.err)
		if err.Error() != tc.want || !errors.As(err, &ne) || ne.Rank != tc.rank || !errors.Is(err, tc.cause) {
			t.Errorf("nodeError(2, %v) = %v, want %q", tc.err, err, tc.want)
		}
	}
	err := cutError(1234, &transport.NodeError{Rank: 0, Addr: "m", Op: "recv", Err: transport.ErrPeerTimeout})
	if want := "standard input stream from the master cut after 1234 bytes: recv: peer timeout"; err.Error() != want ||
		!errors.Is(err, transport.ErrPeerTimeout) || errors.As(err, &ne) {
		t.Errorf("cutError = %v, want %q without a node error", err, want)
	}
}
