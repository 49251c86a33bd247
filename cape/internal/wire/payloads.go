package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrImageShort refuses an image message shorter than its parts.
var ErrImageShort = errors.New("image message too short")

var (
	errTruncatedValues = errors.New("truncated value list")
	errNoMaster        = errors.New("live set without the master")
)

// ChunkPayload is the payload of a chunk message: [lo, hi).
func ChunkPayload(lo, hi int) []byte {
	p := binary.LittleEndian.AppendUint64(make([]byte, 0, 16), uint64(lo))
	return binary.LittleEndian.AppendUint64(p, uint64(hi))
}

// ParseChunk reads a chunk message's payload for a loop of count
// iterations: 0 ≤ lo ≤ hi ≤ count.
func ParseChunk(p []byte, count int) (lo, hi int, err error) {
	if len(p) != 16 {
		return 0, 0, fmt.Errorf("chunk message of %d bytes, want 16", len(p))
	}
	l, h := binary.LittleEndian.Uint64(p[:8]), binary.LittleEndian.Uint64(p[8:])
	if l > h || h > uint64(max(count, 0)) {
		return 0, 0, fmt.Errorf("chunk [%d, %d) outside the loop's %d iterations", l, h, count)
	}
	return int(l), int(h), nil
}

// LivePayload is the payload of a live message.
func LivePayload(live []int) []byte {
	p := binary.LittleEndian.AppendUint32(make([]byte, 0, 4+4*len(live)), uint32(len(live)))
	for _, r := range live {
		p = binary.LittleEndian.AppendUint32(p, uint32(r))
	}
	return p
}

// ParseLive reads a live message's payload: a non-empty ascending set of
// ranks that starts with the master, whose ranks are in prev (the live set
// it replaces) or in [first, first+joiners) (nodes that joined the running
// job; first ≤ 0: none may have).
func ParseLive(p []byte, prev []int, first, joiners int) ([]int, error) {
	if len(p) < 4 {
		return nil, fmt.Errorf("live set of %d bytes is too short", len(p))
	}
	n := binary.LittleEndian.Uint32(p)
	room := uint64(len(prev))
	if first > 0 {
		room += uint64(max(joiners, 0))
	}
	if n == 0 || uint64(n) > room || len(p) != 4+4*int(n) {
		return nil, fmt.Errorf("live set of %d bytes for %d nodes, from %d nodes", len(p), n, len(prev))
	}
	live := make([]int, n)
	j := 0
	for i := range live {
		r := int(binary.LittleEndian.Uint32(p[4+4*i:]))
		for j < len(prev) && prev[j] < r {
			j++
		}
		joined := first > 0 && r >= first && r < first+joiners
		if i > 0 && r <= live[i-1] || !joined && (j == len(prev) || prev[j] != r) {
			return nil, fmt.Errorf("live set names node %d, not ascending or not live before", r)
		}
		live[i] = r
		if !joined {
			j++
		}
	}
	if live[0] != 0 {
		return nil, errNoMaster
	}
	return live, nil
}

// A ReplayPlan is what a replay message tells a restarted job's slaves:
// the regions replayed from the checkpoint log and, if the log holds an
// image, the point where it is restored and the regions it covers.
type ReplayPlan struct {
	Regions  uint64
	HasImage bool
	ImageSeq uint64
	Point    string
}

// AppendReplay appends to dst the payload of a replay message.
func AppendReplay(dst []byte, r ReplayPlan) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, r.Regions)
	if !r.HasImage {
		return dst
	}
	dst = binary.LittleEndian.AppendUint64(dst, r.ImageSeq)
	return append(dst, r.Point...)
}

// ParseReplay reads a replay message's payload.
func ParseReplay(p []byte) (ReplayPlan, error) {
	if len(p) < 8 {
		return ReplayPlan{}, fmt.Errorf("replay message of %d bytes, want at least 8", len(p))
	}
	r := ReplayPlan{Regions: binary.LittleEndian.Uint64(p)}
	tail := p[8:]
	if len(tail) == 0 {
		return r, nil
	}
	if len(tail) < 8 {
		return ReplayPlan{}, fmt.Errorf("replay message: image tail of %d bytes", len(tail))
	}
	r.HasImage, r.ImageSeq, r.Point = true, binary.LittleEndian.Uint64(tail), string(tail[8:])
	return r, nil
}

// AppendImage appends to dst the payload of an image message: the
// regions the image covers, the allocator's state and the allocation table
// (u64 length, then the bytes, each), the point's variables, then the
// arena's extent.
func AppendImage(dst []byte, m ImageMsg) []byte {
	le := binary.LittleEndian
	dst = le.AppendUint64(dst, m.Seq)
	for _, b := range [][]byte{m.Alloc, m.Table} {
		dst = append(le.AppendUint64(dst, uint64(len(b))), b...)
	}
	dst = append(dst, m.Vars...)
	return append(dst, m.Memory...)
}

// ParseImage reads an image message's payload whose point has nvars bytes
// of variables; the slices it returns alias p.
func ParseImage(p []byte, nvars int) (ImageMsg, error) {
	le := binary.LittleEndian
	if len(p) < 8 || nvars < 0 {
		return ImageMsg{}, ErrImageShort
	}
	m := ImageMsg{Seq: le.Uint64(p)}
	p = p[8:]
	for _, b := range []*[]byte{&m.Alloc, &m.Table} {
		if len(p) < 8 || le.Uint64(p) > uint64(len(p)-8) {
			return ImageMsg{}, ErrImageShort
		}
		n := int(le.Uint64(p))
		*b, p = p[8:8+n], p[8+n:]
	}
	if nvars > len(p) {
		return ImageMsg{}, ErrImageShort
	}
	m.Vars, m.Memory = p[:nvars], p[nvars:]
	return m, nil
}

// JoinPayload is the payload of a join message: the regions the joining
// node replayed.
func JoinPayload(regions uint64) []byte { return U64Payload(regions) }

// ParseJoin reads a join message's payload.
func ParseJoin(p []byte) (uint64, error) { return parseU64(p, "join request") }

// LazyHelloPayload is the payload of a lazyHello message.
func LazyHelloPayload(capable bool) []byte {
	if capable {
		return []byte{1}
	}
	return []byte{0}
}

// ParseLazyHello reads a lazyHello payload: whether the slave can take
// lazy pages.
func ParseLazyHello(p []byte) (bool, error) {
	if len(p) != 1 || p[0] > 1 {
		return false, fmt.Errorf("lazy answer of %d bytes, want 1 byte 0 or 1", len(p))
	}
	return p[0] == 1, nil
}

// LazyInfoPayload is the payload of a lazyInfo message.
func LazyInfoPayload(on bool, port int) []byte {
	b := []byte{0, 0, 0}
	if on {
		b[0] = 1
	}
	binary.LittleEndian.PutUint16(b[1:], uint16(port))
	return b
}

// ParseLazyInfo reads a lazyInfo payload.
func ParseLazyInfo(b []byte) (on bool, port int, err error) {
	if len(b) != 3 || b[0] > 1 {
		return false, 0, fmt.Errorf("lazy set-up message of %d bytes, want 3", len(b))
	}
	port = int(binary.LittleEndian.Uint16(b[1:]))
	if b[0] == 1 && port == 0 {
		return false, 0, errors.New("lazy set-up message without a page server port")
	}
	return b[0] == 1, port, nil
}

// HomesHelloPayload is a lazyHello payload under distributed homes:
// whether the slave can take lazy pages, and its page server's port.
func HomesHelloPayload(capable bool, port int) []byte {
	return binary.LittleEndian.AppendUint16(LazyHelloPayload(capable), uint16(port))
}

// ParseHomesHello reads a lazyHello payload under distributed homes.
func ParseHomesHello(p []byte) (capable bool, port int, err error) {
	if len(p) != 3 || p[0] > 1 || (p[0] == 1 && p[1] == 0 && p[2] == 0) {
		return false, 0, fmt.Errorf("homes answer of %d bytes, want capability and a port", len(p))
	}
	return p[0] == 1, int(binary.LittleEndian.Uint16(p[1:])), nil
}

// HomesInfo is the master's answer to the homes set-up (a lazyInfo
// payload): whether distributed homes are on; whether each slave keeps the
// replica of its own pages (SelfReplicas: every node runs on one host, so
// a node's helper outlives its node and serves its pages, and nothing is
// copied to another node); and every node's page server as host:port by
// rank (the master's with no host: the slaves know it).
type HomesInfo struct {
	On, SelfReplicas bool
	Servers          []string
}

// Flags of a HomesInfo payload's first byte.
const (
	homesOn   = 1
	homesSelf = 2
)

// HomesInfoPayload encodes i.
func HomesInfoPayload(i HomesInfo) []byte {
	b := []byte{0}
	if i.On {
		b[0] |= homesOn
	}
	if i.SelfReplicas {
		b[0] |= homesSelf
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(i.Servers)))
	for _, s := range i.Servers {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(s)))
		b = append(b, s...)
	}
	return b
}

// ParseHomesInfo reads a lazyInfo payload under distributed homes for a
// job of size nodes.
func ParseHomesInfo(p []byte, size int) (HomesInfo, error) {
	var i HomesInfo
	if len(p) < 5 || p[0]&^(homesOn|homesSelf) != 0 || p[0] == homesSelf || binary.LittleEndian.Uint32(p[1:]) != uint32(size) {
		return i, fmt.Errorf("homes set-up message of %d bytes for %d nodes", len(p), size)
	}
	rest := p[5:]
	for range size {
		if len(rest) < 2 || int(binary.LittleEndian.Uint16(rest)) > len(rest)-2 {
			return i, errors.New("homes set-up message: truncated server address")
		}
		k := int(binary.LittleEndian.Uint16(rest))
		i.Servers = append(i.Servers, string(rest[2:2+k]))
		rest = rest[2+k:]
	}
	if len(rest) != 0 {
		return i, fmt.Errorf("homes set-up message: %d bytes after the addresses", len(rest))
	}
	i.On, i.SelfReplicas = p[0]&homesOn != 0, p[0]&homesSelf != 0
	return i, nil
}

// Standard input modes of a stdinInfo message.
const (
	StdinNone   = 0 // no input: every node reads /dev/null
	StdinStream = 1 // the master streams its input
)

// StdinInfoPayload is the payload of a stdinInfo message: the mode and
// the port of the input's server (0: the job's).
func StdinInfoPayload(mode uint8, port int) []byte {
	return binary.LittleEndian.AppendUint16([]byte{mode}, uint16(port))
}

// ParseStdinInfo reads a stdinInfo payload.
func ParseStdinInfo(p []byte) (mode uint8, port int, err error) {
	if len(p) != 3 || p[0] > StdinStream {
		return 0, 0, fmt.Errorf("standard input information of %d bytes, mode %v", len(p), p)
	}
	return p[0], int(binary.LittleEndian.Uint16(p[1:])), nil
}

func parseU64(p []byte, what string) (uint64, error) {
	if len(p) != 8 {
		return 0, fmt.Errorf("%s of %d bytes, want 8", what, len(p))
	}
	return binary.LittleEndian.Uint64(p), nil
}

// U64Payload is a payload of one number (stdinEnd, stdinAck).
func U64Payload(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }
