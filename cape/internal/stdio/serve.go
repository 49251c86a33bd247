package stdio

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/cape-go/cape/transport"
)

// dialTimeout bounds a slave's wait for the master's input server.
const dialTimeout = 60 * time.Second

// Cut is the master's at=stdin fault: After past the stream's start,
// Notify is called and every input connection is reset (CutListener).
type Cut struct {
	After  time.Duration
	Notify func()
}

// Serve waits on ln for the input connections of the slaves 1..size-1
// (transport.NewMaster with cfg, see Config) and starts the master's Share
// on them (StartShare; fail and peerErr as in NewShare). With cut not nil,
// it also carries out that fault. It does not close ln.
func Serve(ln net.Listener, cfg transport.Config, size int, cut *Cut, fail func(error), peerErr func(rank int, err error)) (*Share, error) {
	var cl *CutListener
	if cut != nil {
		cl = &CutListener{Listener: ln}
		ln = cl
	}
	pm, err := transport.NewMaster(ln, cfg)
	if err != nil {
		return nil, fmt.Errorf("wait for the slaves: %w", err)
	}
	s, err := StartShare(pm, size, fail, peerErr)
	if err != nil {
		return nil, err
	}
	if cut != nil {
		go func() {
			time.Sleep(cut.After)
			cut.Notify()
			cl.Cut()
		}()
	}
	return s, nil
}

// Connect connects node rank to the master's input server (Addr of master
// and port; transport.Dial with cfg, waiting at most a minute) and starts
// this slave's Queue on the connection (StartQueue; fail as in NewQueue).
func Connect(master string, port uint16, rank int, cfg transport.Config, fail func(error)) (*Queue, error) {
	addr, err := Addr(master, port)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
	defer cancel()
	conn, err := transport.Dial(ctx, addr, rank, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to the master: %w", err)
	}
	return StartQueue(conn, fail)
}
