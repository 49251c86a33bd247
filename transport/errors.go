package transport

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"syscall"
)

// Errors reported by this package. Operations wrap them with context, most
// often in a [*NodeError] naming the remote node; test for them with
// [errors.Is].
var (
	// ErrConfig means a [Config] or an argument is invalid: a short token, a
	// size below one, a rank out of range.
	ErrConfig = errors.New("invalid transport config")
	// ErrAuth means a handshake failed to authenticate: one side does not
	// hold the job's token (or a third party is in the middle).
	ErrAuth = errors.New("authentication failed")
	// ErrRejected means the master refused a slave that authenticated or
	// tried to: wrong job id, rank out of range, duplicate rank, size
	// mismatch, unsupported protocol version.
	ErrRejected = errors.New("rejected")
	// ErrRankTaken means the master refused a slave's rank because another
	// node holds it; it wraps ErrRejected. A node joining a running job
	// (see Master.Admit) tries the next rank.
	ErrRankTaken = fmt.Errorf("%w: rank taken", ErrRejected)
	// ErrFrameTooLarge means a message is larger than [Config].MaxFrame. A
	// received header that declares one is rejected before any allocation.
	ErrFrameTooLarge = errors.New("frame too large")
	// ErrCorruptFrame means a received frame failed its authentication tag
	// (modified, replayed, reordered or injected) or is malformed. The
	// connection is dropped.
	ErrCorruptFrame = errors.New("corrupt frame")
	// ErrPeerTimeout means a peer sent nothing (not even a heartbeat) for
	// [Config].PeerTimeout, or did not drain a write for [Config].IOTimeout.
	ErrPeerTimeout = errors.New("peer timeout")
	// ErrConnLost means the connection ended without the peer's goodbye:
	// the peer died, or its end was reset (EOF, ECONNRESET). The underlying
	// error is wrapped too.
	ErrConnLost = errors.New("connection lost")
	// ErrPeerClosed means the peer closed its end cleanly (it called Close).
	ErrPeerClosed = errors.New("peer closed the connection")
	// ErrClosed means the local Master or Slave was closed. It is returned
	// as is, not in a [*NodeError].
	ErrClosed = errors.New("transport closed")
	// ErrJoinTimeout means [NewMaster] gave up before every slave joined.
	ErrJoinTimeout = errors.New("slaves did not join in time")
	// ErrReservedKind means a message kind below [MinKind] was passed to a
	// send: those kinds belong to the transport.
	ErrReservedKind = errors.New("message kind reserved by the transport")
)

// NodeError reports a failed operation with one remote node. It is a plain
// value, safe for concurrent use.
type NodeError struct {
	Rank int    // rank of the remote node; 0 for the master, -1 if unknown
	Addr string // remote address
	Op   string // "dial", "handshake", "send" or "recv"
	Err  error  // the cause; wraps one of the package's sentinel errors
}

func (e *NodeError) Error() string {
	r := "?"
	if e.Rank >= 0 {
		r = strconv.Itoa(e.Rank)
	}
	return "node " + r + " (" + e.Addr + "): " + e.Op + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *NodeError) Unwrap() error { return e.Err }

// Is reports whether target is a *NodeError about the same rank and, if
// target's Op is not empty, the same operation: errors.Is(err,
// &NodeError{Rank: 2}) tells whether err is about node 2.
func (e *NodeError) Is(target error) bool {
	t, ok := target.(*NodeError)
	return ok && t.Rank == e.Rank && (t.Op == "" || t.Op == e.Op)
}

// netCause strips the address decoration of net and os errors (the
// NodeError names the node already) and marks a broken connection with
// ErrConnLost.
func netCause(err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) {
		err = oe.Err
	}
	var se *os.SyscallError
	if errors.As(err, &se) {
		err = se.Err
	}
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, net.ErrClosed):
		return &lostError{err}
	}
	return err
}

// lostError is ErrConnLost with its cause; it matches both.
type lostError struct{ err error }

func (e *lostError) Error() string   { return ErrConnLost.Error() + ": " + e.err.Error() }
func (e *lostError) Unwrap() []error { return []error{ErrConnLost, e.err} }
