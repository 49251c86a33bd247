package transport

import "time"

// Relayed broadcasts. See doc.go, "Scalable broadcast".

// Transport-internal message kinds (below MinKind).
const (
	kindPort     = 3 // slave → master: u16 port of the slave's relay listener
	kindLinks    = 4 // master → slave: the children to dial: n × (u32 rank, u16 len, address)
	kindReady    = 5 // slave → master: links up (empty) or why not (text)
	kindAnnounce = 6 // master → slave: broadcast #Seq is next: u8 kind, u64 seq of the message, u8 scheme (kindChain or kindTree)
	kindChain    = 7 // relayed payload of broadcast #Seq, forwarded along the chain
	kindTree     = 8 // relayed payload of broadcast #Seq, forwarded down the binary tree
)

// announceLen is the length of a kindAnnounce payload.
const announceLen = 10

func internalKind(k uint8) bool { return k >= kindPort && k <= kindTree }
func relayKind(k uint8) bool    { return k == kindChain || k == kindTree }

// Broadcast schemes, for Config.Broadcast.
const (
	BroadcastAuto  = "auto"  // chosen per message by node count and size
	BroadcastStar  = "star"  // the master sends to every slave; no slave-to-slave links
	BroadcastTree  = "tree"  // binary tree over ranks, forwarded chunk by chunk
	BroadcastChain = "chain" // pipeline 0 → 1 → … → Size-1, forwarded chunk by chunk
)

// Thresholds of the automatic choice (see chooseScheme).
const (
	relayMinBytes = 64 << 10 // below this a message goes by star: latency dominates
	relayMinNodes = 3        // with fewer nodes every scheme is the star
)

// relaySetupTimeout bounds building the slave-to-slave links; if they are
// not up in time the job uses the star (and Master.RelayErr says why).
const relaySetupTimeout = 10 * time.Second

// setupTimeout is how long the relay set-up may take: at most
// relaySetupTimeout, HandshakeTimeout and PeerTimeout (but not below
// minHandshake). The master waits twice as long for the slaves' reports; a
// node that hangs meanwhile is found by its connection's PeerTimeout.
func setupTimeout(cfg *Config) time.Duration {
	return min(relaySetupTimeout, cfg.HandshakeTimeout, max(cfg.PeerTimeout, minHandshake))
}

// children returns the ranks that rank forwards a relayed message of kind
// to: rank+1 on the chain; 2·rank+1 and 2·rank+2 in the binary tree.
func children(kind uint8, rank, size int) []int {
	var out []int
	switch kind {
	case kindChain:
		if rank+1 < size {
			out = append(out, rank+1)
		}
	case kindTree:
		for _, c := range []int{2*rank + 1, 2*rank + 2} {
			if c < size {
				out = append(out, c)
			}
		}
	}
	return out
}

// parent returns the rank that forwards a relayed message of kind to rank
// (0 is the master), or -1 if kind is not a relay scheme.
func parent(kind uint8, rank int) int {
	switch {
	case rank < 1:
		return -1
	case kind == kindChain:
		return rank - 1
	case kind == kindTree:
		return (rank - 1) / 2
	}
	return -1
}

// linkChildren returns the slaves that slave rank dials (its children in
// either scheme), and linkParents the slaves that dial it.
func linkChildren(rank, size int) []int {
	var out []int
	for _, k := range []uint8{kindChain, kindTree} {
		for _, c := range children(k, rank, size) {
			if c != rank && !contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

func linkParents(rank, size int) []int {
	var out []int
	for p := 1; p < rank; p++ {
		if contains(linkChildren(p, size), rank) {
			out = append(out, p)
		}
	}
	return out
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// chooseScheme picks the broadcast scheme of a payload of n bytes. The star
// costs the master (Size-1)·n bytes; the chain costs it n and adds about
// one chunk of delay per hop; the tree costs it 2n and adds two chunks per
// level. Small messages go by star (one hop); large ones by chain once the
// payload is long enough to fill the pipeline, by tree before that.
func chooseScheme(mode string, n, size int) uint8 {
	switch {
	case size < relayMinNodes || mode == BroadcastStar:
		return 0
	case mode == BroadcastChain:
		return kindChain
	case mode == BroadcastTree:
		return kindTree
	case n < relayMinBytes:
		return 0
	case n >= 2*(size-2)*chunkLen:
		return kindChain
	}
	return kindTree
}

func relayEnabled(cfg *Config) bool {
	return cfg.Size >= relayMinNodes && cfg.Broadcast != BroadcastStar
}
