package transport

import (
	"fmt"
	"time"
)

// Defaults used for the zero fields of a [Config].
const (
	DefaultMaxFrame          = 1 << 30
	DefaultHandshakeTimeout  = 30 * time.Second
	DefaultIOTimeout         = 10 * time.Second
	DefaultPeerTimeout       = 10 * time.Second
	DefaultHeartbeatInterval = 500 * time.Millisecond
)

// JoinTimeout is the HandshakeTimeout of a job whose PeerTimeout is peer:
// three peer timeouts, never less than DefaultHandshakeTimeout. Nodes join
// while they start, when ssh, a batch system or a loaded host may take many
// seconds to start a process; that says nothing of a node gone silent
// later, which is what a short peer timeout (--timeout) is asked to catch.
func JoinTimeout(peer time.Duration) time.Duration {
	return max(3*peer, DefaultHandshakeTimeout)
}

// MinTokenLen is the shortest job token accepted, in bytes.
const MinTokenLen = 16

// MinKind is the smallest message kind available to callers; kinds below it
// (heartbeat, goodbye) belong to the transport.
const MinKind = 16

// Config is the configuration of one node of a job. Every node of a job
// should use the same values. It is a plain value, safe to share once
// filled in: the package reads it, never modifies it, and copies the Token.
type Config struct {
	// Token is the job's secret, at least MinTokenLen random bytes, the
	// same on every node. Pass it to slaves on stdin or in the
	// environment, never on a command line.
	Token []byte
	// JobID identifies the job; a slave of another job is rejected.
	JobID uint64
	// Size is the number of nodes, the master included (ranks 0..Size-1).
	Size int
	// MaxJoin is how many nodes may join the running job after NewMaster
	// returned (Master.Admit), under ranks Size..Size+MaxJoin-1; master
	// and joining nodes must agree on it. Zero: none.
	MaxJoin int

	// MaxFrame bounds the payload of one Message, in bytes (default 1 GiB).
	// On the wire a payload travels in chunks of at most 1 MiB.
	MaxFrame int
	// KindLimits bounds the payload of the messages of some kinds (each
	// ≥ MinKind) more tightly than MaxFrame: a receiver refuses a larger
	// one from its header, before it allocates anything, and a send of
	// one fails. A receiver allocates a payload as its bytes arrive in any
	// case, so a header alone never costs more than a few MiB.
	KindLimits map[uint8]int

	// HandshakeTimeout bounds joining: NewMaster waits this long overall
	// for all the slaves; Dial uses it when its context has no deadline
	// (default 30s).
	HandshakeTimeout time.Duration
	// IOTimeout bounds each socket write: a peer that does not drain a
	// chunk for this long is an ErrPeerTimeout (default 10s).
	IOTimeout time.Duration
	// PeerTimeout bounds silence: a connection that received nothing, not
	// even a heartbeat, for this long fails with ErrPeerTimeout
	// (default 10s). It must exceed HeartbeatInterval.
	PeerTimeout time.Duration
	// HeartbeatInterval is how long a connection may send nothing before
	// it sends a heartbeat (default 500ms).
	HeartbeatInterval time.Duration

	// Broadcast is the scheme of Master.Broadcast: BroadcastAuto (the
	// default, ""), BroadcastStar, BroadcastTree or BroadcastChain. Except
	// with the star, a job of 3 or more nodes builds slave-to-slave relay
	// links when it starts, so every slave must be able to reach the
	// others at the address the master sees it at.
	Broadcast string

	// HealRelay makes a relayed broadcast survive the loss of a relay node:
	// the master keeps the payload of its last relayed broadcast (the
	// caller must not modify it until the next one) and, when it drops or
	// excludes a slave, sends it again to that slave's descendants in the
	// broadcast's scheme, over their own connections; a slave whose relay
	// parent ended without forwarding a broadcast waits for that copy
	// instead of failing (it still fails if the master's connection does).
	// Master and slaves must agree on it.
	HealRelay bool

	// Notice, if set, receives what the transport wants the user to know
	// but is not an error of any call: that the relay links failed and
	// broadcasts fall back to the star, naming the nodes (Master.RelayErr
	// returns the same). It must not block.
	Notice func(msg string)
}

// normalize returns a copy of c with defaults filled in and the token
// copied, or an error wrapping ErrConfig.
func (c Config) normalize() (Config, error) {
	if len(c.Token) < MinTokenLen {
		return c, fmt.Errorf("%w: token of %d bytes, want at least %d", ErrConfig, len(c.Token), MinTokenLen)
	}
	c.Token = append([]byte(nil), c.Token...)
	if c.KindLimits != nil {
		limits := make(map[uint8]int, len(c.KindLimits))
		for k, n := range c.KindLimits {
			if k < MinKind || n < 0 {
				return c, fmt.Errorf("%w: KindLimits[%d] = %d", ErrConfig, k, n)
			}
			limits[k] = n
		}
		c.KindLimits = limits
	}
	if c.Size < 1 || int64(c.Size) > 1<<31-1 {
		return c, fmt.Errorf("%w: size %d", ErrConfig, c.Size)
	}
	if c.MaxJoin < 0 || int64(c.Size)+int64(c.MaxJoin) > 1<<31-1 {
		return c, fmt.Errorf("%w: MaxJoin %d", ErrConfig, c.MaxJoin)
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	if c.MaxFrame == 0 {
		c.MaxFrame = DefaultMaxFrame
	}
	def(&c.HandshakeTimeout, DefaultHandshakeTimeout)
	def(&c.IOTimeout, DefaultIOTimeout)
	def(&c.PeerTimeout, DefaultPeerTimeout)
	def(&c.HeartbeatInterval, DefaultHeartbeatInterval)
	switch c.Broadcast {
	case "":
		c.Broadcast = BroadcastAuto
	case BroadcastAuto, BroadcastStar, BroadcastTree, BroadcastChain:
	default:
		return c, fmt.Errorf("%w: Broadcast %q: want auto, star, tree or chain", ErrConfig, c.Broadcast)
	}
	switch {
	case c.MaxFrame < 0:
		return c, fmt.Errorf("%w: MaxFrame %d", ErrConfig, c.MaxFrame)
	case c.HandshakeTimeout < 0 || c.IOTimeout < 0 || c.PeerTimeout < 0 || c.HeartbeatInterval < 0:
		return c, fmt.Errorf("%w: negative timeout", ErrConfig)
	case c.PeerTimeout <= c.HeartbeatInterval:
		return c, fmt.Errorf("%w: PeerTimeout %v must exceed HeartbeatInterval %v", ErrConfig, c.PeerTimeout, c.HeartbeatInterval)
	}
	return c, nil
}
