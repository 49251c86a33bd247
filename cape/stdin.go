package cape

import (
	"fmt"
	"time"

	"github.com/cape-go/cape/cape/internal/setup"
	"github.com/cape-go/cape/cape/internal/stdio"
	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/transport"
)

// The runtime's side of the input stream (package stdio): the set-up on
// the job's connection, the input server on the job's port, and what a
// failed stream does to the job. A failed stream ends the job through the
// runtime's exit path; on the master a slave's failed stream ends the job
// unless the job survives losses (--max-lost), in which case the slave,
// whose input stopped, fails by itself and is lost like any failed node.

// shareStdinMaster decides how the job reads standard input and tells the
// slaves; streaming, it starts the master's side.
func (n *node) shareStdinMaster() error {
	stream, err := stdio.IsStream()
	if err != nil {
		return fmt.Errorf("standard input: %w", err)
	}
	if !stream {
		if err := n.sendEach(wire.StdinInfo, wire.StdinInfoPayload(wire.StdinNone, 0)); err != nil {
			return fmt.Errorf("standard input set-up: %w", err)
		}
		return stdio.DevNullStdin()
	}
	// The input's connections come to the job's one port (the router hands
	// them over by their job id, stdio.JobID), so that a firewall that
	// opens --master-port only lets the input through.
	bln, port, err := n.listenBeside(stdio.JobID(n.cfg.Job))
	if err != nil {
		return fmt.Errorf("standard input: open its server: %w", err)
	}
	defer bln.Close()
	if err := n.sendEach(wire.StdinInfo, wire.StdinInfoPayload(wire.StdinStream, port)); err != nil {
		return fmt.Errorf("standard input set-up: %w", err)
	}
	var cut *stdio.Cut
	if f := n.faults.Take(n.rank, "stdin"); f != nil { // do=cut, once
		cut = &stdio.Cut{After: f.After, Notify: func() {
			notice("cape: %s: injected fault: cut the standard input connections\n", n.name)
		}}
	}
	share, err := stdio.Serve(bln, n.stdinConfig(), n.size, cut, fail, n.stdinPeerFailed)
	if err != nil {
		return fmt.Errorf("standard input: %w", err)
	}
	n.stdin = share
	return nil
}

// stdinConfig is the input connection's configuration: the job's token
// and timeouts.
func (n *node) stdinConfig() transport.Config {
	return stdio.Config(n.cfg.Token, n.cfg.Job, n.size, n.cfg.PeerTimeout)
}

// stdinPeerFailed is the master's answer to a slave's stream that failed
// (see stdio.Share), as setup.InputFailed decides.
func (n *node) stdinPeerFailed(rank int, err error) {
	closing := n.closing.Load()
	var lost, tolerant bool
	if !closing { // once the job ends, the losses' lock is not taken
		n.lossMu.Lock()
		lost, tolerant = n.members.IsLost(rank), n.members.Tolerant()
		n.lossMu.Unlock()
	}
	switch setup.InputFailed(closing, lost, tolerant) {
	case setup.Notify:
		notice("cape: master: %v; node %d gets no more input\n", err, rank)
	case setup.Fail:
		fail(err)
	}
}

// stdinLost takes a slave the job declared lost out of the input stream
// and closes its input connection in the background (a straggler that
// wakes sees the master's orderly close, not an end of input, and learns
// from the job's connection that it must leave). No lock is held
// (declareLost).
func (n *node) stdinLost(rank int) {
	if n.stdin != nil {
		n.stdin.Drop(rank)
	}
}

// takeStdinSlave reads the master's decision and, streaming, connects to
// the master's input server and starts feeding this node's program.
func (n *node) takeStdinSlave() error {
	msg, err := n.slave.Recv()
	if err == nil {
		err = fromMaster(msg, wire.StdinInfo, 0)
	}
	var mode uint8
	var port int
	if err == nil {
		mode, port, err = wire.ParseStdinInfo(msg.Payload)
	}
	if err != nil {
		return fmt.Errorf("standard input set-up: %w", err)
	}
	if mode == wire.StdinNone {
		return stdio.DevNullStdin()
	}
	q, err := stdio.Connect(n.cfg.Master, uint16(port), n.rank, n.stdinConfig(), n.stdinFailed)
	if err != nil {
		return fmt.Errorf("standard input: %w", err)
	}
	n.stdin = q
	return nil
}

// stdinFailed ends a slave whose input stream failed, as
// setup.OwnInputFailed decides once the watchdogs' grace has passed (or the
// job's connection failed too: then the master is gone, and the watchdog,
// watchMaster, says how, as it would without input).
func (n *node) stdinFailed(err error) {
	t := time.NewTimer(watchGrace)
	defer t.Stop()
	dead := false
	select {
	case <-n.slave.Dead():
		dead = true
	case <-t.C:
	}
	if setup.OwnInputFailed(dead, n.closing.Load()) == setup.Fail {
		fail(err)
	}
}

// closeStdin ends this node's input stream in order (Finalize): a slave
// tells the master it ended, the master closes its connections once the
// slaves are done. Once closed, it does nothing.
func (n *node) closeStdin() error {
	if n.stdin == nil {
		return nil
	}
	var err error
	n.stdinClosed.Do(func() { err = n.stdin.Close() })
	return err
}
