package cape

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/transport"
)

// Every node runs the program's sequential code, so every node must read
// the same standard input, while a launcher gives it to one process at most
// (cape run and srun to the master, mpirun to rank 0). So when the master's
// standard input is a file, a pipe or a socket, the master streams it to
// the slaves: at Init it replaces its own descriptor 0 with a pipe, reads
// the real input in a goroutine, feeds its program through the pipe and
// sends every chunk to each slave over a connection of its own (to the
// job's port, authenticated like the job's, with the job's timeouts), where a
// goroutine queues the chunks and feeds the slave program's descriptor 0,
// a pipe too. Any other standard input (a terminal, /dev/null, none)
// becomes /dev/null on every node: a terminal is never read, since a node
// is not in the terminal's foreground.
//
// The stream is flow-controlled: a slave acknowledges the bytes it wrote
// to its program's pipe, and the master reads at most stdinWindow bytes
// ahead of the slowest consumer (its own program or a slave still
// streamed to), so each side holds at most a window of input however long
// the input and however slow a slave (stdinShare, stdinQueue). A slave
// that ended, failed or was declared lost holds no one back.
//
// The end of the input is explicit: the master's end message carries the
// input's size, and a slave's program sees the end of its input only when
// that many bytes arrived. A stream that fails otherwise (a cut or reset
// connection, a timeout, a malformed message) ends the job with an error
// naming the node, through the runtime's exit path; it is never an end of
// input a program could take for the real one. On the master a slave's
// failed stream ends the job unless the job survives losses (--max-lost),
// in which case the slave, whose input stopped, fails by itself and is
// lost like any failed node.

const (
	stdinChunk = 64 << 10
	// stdinWindow bounds the input read and not yet taken by every
	// consumer: what the master holds, and what a slave queues.
	stdinWindow = 4 << 20
	// stdinAckEvery is how many bytes a slave feeds its program before it
	// acknowledges them (and whenever its queue runs dry).
	stdinAckEvery = stdinWindow / 4
)

// errStdinProtocol marks a message on the input's connection that breaks
// the stream's protocol.
var errStdinProtocol = errors.New("input stream protocol")

// stdinJobID keeps the input's connections apart from the job's.
func stdinJobID(job uint64) uint64 { return job ^ 0x7374_6469_6e00_0000 }

// shareStdinMaster decides how the job reads standard input and tells the
// slaves; streaming, it starts the master's side.
func (n *node) shareStdinMaster() error {
	stream, err := stdinIsStream()
	if err != nil {
		return fmt.Errorf("standard input: %w", err)
	}
	if !stream {
		if err := n.sendEach(kindStdinInfo, wire.StdinInfoPayload(wire.StdinNone, 0)); err != nil {
			return fmt.Errorf("standard input set-up: %w", err)
		}
		return devNullStdin()
	}
	// The input's connections come to the job's one port (the router hands
	// them over by their job id, stdinJobID), so that a firewall that opens
	// --master-port only lets the input through.
	bln, port, err := n.listenBeside(stdinJobID(n.cfg.Job))
	if err != nil {
		return fmt.Errorf("standard input: open its server: %w", err)
	}
	defer bln.Close()
	if err := n.sendEach(kindStdinInfo, wire.StdinInfoPayload(wire.StdinStream, port)); err != nil {
		return fmt.Errorf("standard input set-up: %w", err)
	}
	sln := bln
	cut := n.stdinCutFault()
	var rec *connRecorder
	if cut != nil {
		rec = &connRecorder{Listener: bln}
		sln = rec
	}
	pm, err := transport.NewMaster(sln, n.stdinConfig())
	if err != nil {
		return fmt.Errorf("standard input: wait for the slaves: %w", err)
	}
	src, w, err := pipeStdin()
	if err != nil {
		pm.Close()
		return fmt.Errorf("standard input: %w", err)
	}
	ranks := make([]int, 0, n.size-1)
	for rank := 1; rank < n.size; rank++ {
		ranks = append(ranks, rank)
	}
	n.stdinM = newStdinShare(pm, ranks, stdinWindow, fail, n.stdinPeerFailed)
	n.stdinPM = pm
	n.stdinM.start(src, w)
	if cut != nil {
		go n.cutStdin(cut, rec)
	}
	return nil
}

// stdinConfig is the input connection's configuration: the job's token
// and timeouts (--timeout raises them all: a slave paused that long
// still gets its whole input).
func (n *node) stdinConfig() transport.Config {
	c := transport.Config{Token: n.cfg.Token, JobID: stdinJobID(n.cfg.Job), Size: n.size, MaxFrame: stdinChunk,
		KindLimits: map[uint8]int{kindStdinData: stdinChunk, kindStdinEnd: 8, kindStdinAck: 8}}
	if d := n.cfg.PeerTimeout; d > 0 {
		c.PeerTimeout, c.IOTimeout, c.HandshakeTimeout = d, d, 3*d
	}
	return c
}

// stdinPeerFailed is the master's answer to a slave's stream that failed
// (see stdinShare.peerErr): nothing once the job ends or the slave was
// declared lost; a notice where the job survives losses (the slave's
// input stopped, so it fails by itself and is lost like any failed node);
// otherwise the job's end, naming the slave.
func (n *node) stdinPeerFailed(rank int, err error) {
	if n.closing.Load() {
		return
	}
	n.lossMu.Lock()
	lost := n.mem.IsLost(rank)
	tolerant := n.mem.Tolerant()
	n.lossMu.Unlock()
	switch {
	case lost:
		return
	case tolerant:
		notice("cape: master: %v; node %d gets no more input\n", err, rank)
		return
	}
	fail(err)
}

// stdinLost takes a slave the job declared lost out of the input stream
// and closes its input connection in the background (a straggler that
// wakes sees the master's orderly close, not an end of input, and learns
// from the job's connection that it must leave). n.lossMu is held
// (declareLost).
func (n *node) stdinLost(rank int) {
	if n.stdinM != nil {
		n.stdinM.drop(rank)
		_ = n.stdinPM.Drop(rank)
	}
}

// takeStdinSlave reads the master's decision and, streaming, connects to
// the master's input server and starts feeding this node's program.
func (n *node) takeStdinSlave() error {
	msg, err := n.slave.Recv()
	if err == nil {
		err = fromMaster(msg, kindStdinInfo, 0)
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
		return devNullStdin()
	}
	addr := n.cfg.Master
	if port != 0 {
		host, _, err := net.SplitHostPort(n.cfg.Master)
		if err != nil {
			return fmt.Errorf("standard input: master address %q: %w", n.cfg.Master, err)
		}
		addr = net.JoinHostPort(host, strconv.Itoa(port))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, err := transport.Dial(ctx, addr, n.rank, n.stdinConfig())
	if err != nil {
		return fmt.Errorf("standard input: connect to the master: %w", err)
	}
	_, w, err := pipeStdin()
	if err != nil {
		conn.Close()
		return fmt.Errorf("standard input: %w", err)
	}
	n.stdinS = newStdinQueue(conn, stdinAckEvery, n.stdinFailed)
	n.stdinS.start(w)
	return nil
}

// stdinFailed ends a slave whose input stream failed, unless the job is
// ending, or the job's connection failed too: then the master is gone,
// and the watchdog (watchMaster) says how, as it would without input.
func (n *node) stdinFailed(err error) {
	t := time.NewTimer(watchGrace)
	defer t.Stop()
	select {
	case <-n.slave.Dead():
		return
	case <-t.C:
	}
	if n.closing.Load() {
		return
	}
	fail(err)
}

// closeStdin ends this node's input stream in order (Finalize): a slave
// tells the master it ended, the master closes its connections once the
// slaves are done.
func (n *node) closeStdin() error {
	var errs []error
	if n.stdinS != nil {
		errs = append(errs, n.stdinS.close())
	}
	if n.stdinPM != nil {
		errs = append(errs, n.stdinPM.Close())
	}
	return errors.Join(errs...)
}

// stdinCutFault returns the master's pending at=stdin fault (do=cut), if
// any, and forgets it (it fires once).
func (n *node) stdinCutFault() *faultSpec { return n.faults.Take(n.rank, "stdin") }

// cutStdin carries out an at=stdin fault: after f.after it resets every
// input connection the master accepted, as a network cut (or ss -K) would.
func (n *node) cutStdin(f *faultSpec, rec *connRecorder) {
	time.Sleep(f.After)
	notice("cape: %s: injected fault: cut the standard input connections\n", n.name)
	rec.reset()
}

// connRecorder is a listener that remembers the connections it accepted,
// for the at=stdin fault. It is safe for concurrent use.
type connRecorder struct {
	net.Listener
	mu    sync.Mutex // protects conns
	conns []net.Conn
}

// SetDeadline passes the transport's accept deadline on, so that its
// join stops accepting on the job's listener when it is done.
func (l *connRecorder) SetDeadline(t time.Time) error {
	if d, ok := l.Listener.(interface{ SetDeadline(time.Time) error }); ok {
		return d.SetDeadline(t)
	}
	return nil
}

func (l *connRecorder) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.mu.Lock()
		l.conns = append(l.conns, c)
		l.mu.Unlock()
	}
	return c, err
}

// reset closes every accepted connection with a reset (SO_LINGER 0).
func (l *connRecorder) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.conns {
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
		_ = c.Close()
	}
}
