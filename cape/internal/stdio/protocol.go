package stdio

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/transport"
)

// The input stream's protocol. Its set-up travels on the job's connection
// as the stdinInfo message; the stream itself has a connection of its own.
// Both connections' kinds are numbered, and the set-up's payload encoded,
// in cape/internal/wire's table. Seq carries a byte offset.
const (
	KindData = wire.StdinData // master → slave: the bytes from offset Seq on
	KindEnd  = wire.StdinEnd  // master → slave: the end; u64 the input's size (also in Seq)
	KindAck  = wire.StdinAck  // slave → master: u64 bytes fed to the program so far (also in Seq)
)

const (
	// Chunk is the most bytes one data message carries.
	Chunk = 64 << 10
	// Window bounds the input read and not yet taken by every consumer:
	// what the master holds, and what a slave queues.
	Window = 4 << 20
	// AckEvery is how many bytes a slave feeds its program before it
	// acknowledges them (and whenever its queue runs dry).
	AckEvery = Window / 4
)

// ErrProtocol marks a message on the input's connection that breaks the
// stream's protocol.
var ErrProtocol = errors.New("input stream protocol")

// JobID is the job id of the input's connections, which keeps them apart
// from the job's (job) on the job's port.
func JobID(job uint64) uint64 { return job ^ 0x7374_6469_6e00_0000 }

// Config is the input connection's configuration for a job of size nodes:
// the job's token and, where peerTimeout is set (--timeout), the job's
// timeouts for every wait (a slave paused that long still gets its whole
// input).
func Config(token []byte, job uint64, size int, peerTimeout time.Duration) transport.Config {
	c := transport.Config{Token: token, JobID: JobID(job), Size: size, MaxFrame: Chunk,
		KindLimits: map[uint8]int{KindData: Chunk, KindEnd: 8, KindAck: 8}}
	if d := peerTimeout; d > 0 {
		c.PeerTimeout, c.IOTimeout, c.HandshakeTimeout = d, d, transport.JoinTimeout(d)
	}
	return c
}

// Addr is the address of the master's input server: the job's address
// master, on port unless port is 0.
func Addr(master string, port uint16) (string, error) {
	if port == 0 {
		return master, nil
	}
	host, _, err := net.SplitHostPort(master)
	if err != nil {
		return "", fmt.Errorf("master address %q: %w", master, err)
	}
	return net.JoinHostPort(host, strconv.Itoa(int(port))), nil
}

// nodeError is err, a failure of rank's input stream on the master, as a
// *transport.NodeError naming the node and the stream.
func nodeError(rank int, err error) error {
	const op = "standard input stream: "
	var ne *transport.NodeError
	if errors.As(err, &ne) {
		return &transport.NodeError{Rank: ne.Rank, Addr: ne.Addr, Op: op + ne.Op, Err: ne.Err}
	}
	return &transport.NodeError{Rank: rank, Addr: "-", Op: op + "recv", Err: err}
}

// cutError is a slave's error for a stream that failed after recvd bytes.
// It names this node's input, not the master: the master's transport
// error is unwrapped to its cause so that the node's failure report
// blames the node whose input was cut.
func cutError(recvd int64, err error) error {
	var ne *transport.NodeError
	if errors.As(err, &ne) {
		return fmt.Errorf("standard input stream from the master cut after %d bytes: %s: %w", recvd, ne.Op, ne.Err)
	}
	return fmt.Errorf("standard input stream from the master cut after %d bytes: %w", recvd, err)
}

// Stream is a node's side of the input stream, the master's *Share or a
// slave's *Queue, as the runtime keeps it.
type Stream interface {
	// Drop takes a slave the job declared lost out of the stream (the
	// master's side; a slave's has no one to drop).
	Drop(rank int)
	// Close ends this side in order.
	Close() error
}

var (
	_ Stream = (*Share)(nil)
	_ Stream = (*Queue)(nil)
)
