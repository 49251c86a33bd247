package stdio

import (
	"errors"
	"net"
	"strings"
	"testing"
)

// failingListener is a listener whose Accept fails at once.
type failingListener struct{ err error }

func (l failingListener) Accept() (net.Conn, error) { return nil, l.err }
func (l failingListener) Close() error              { return nil }
func (l failingListener) Addr() net.Addr            { return &net.TCPAddr{} }

// TestServeConnectErrors checks the errors of the input's set-up that need
// no connection: a master whose listener fails, cut or not, and a slave
// given a malformed master address; none calls back.
func TestServeConnectErrors(t *testing.T) {
	accept := errors.New("accept refused")
	never := func(error) { t.Error("fail called") }
	cfg := Config([]byte("0123456789abcdef0123456789abcdef"), 7, 3, 0)
	for _, cut := range []*Cut{nil, {Notify: func() { t.Error("cut notified") }}} {
		s, err := Serve(failingListener{accept}, cfg, 3, cut, never, func(int, error) { t.Error("peerErr called") })
		if s != nil || !errors.Is(err, accept) || !strings.HasPrefix(err.Error(), "wait for the slaves: ") {
			t.Errorf("Serve (cut %v) on a failing listener = %v, %v; want the accept error after \"wait for the slaves: \"", cut != nil, s, err)
		}
	}
	for _, c := range []struct {
		master string
		port   uint16
		want   string
	}{
		{"no-port", 4000, `master address "no-port": `},
		{"[::1", 4000, `master address "[::1": `},
	} {
		q, err := Connect(c.master, c.port, 1, cfg, never)
		if q != nil || err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Connect(%q, %d) = %v, %v; want an error starting %q", c.master, c.port, q, err, c.want)
		}
	}
}
