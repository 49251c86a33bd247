package cape

// The runtime's protocol: the kinds of the messages nodes exchange over the
// transport, their payloads, and the checks every received message passes
// before anything in it is used. Every message carries the region it
// belongs to in transport.Message.Seq (the job's count of regions begun).
//
//	kind       from → to        payload (numbers: the kinds table below)
//	delta      slave → master   envelope: the slave's delta and its values' partials
//	merged     master → slave   envelope: the merged delta less the slave's own bytes
//	                            (incremental; complete: the whole arena), and the values' results
//	chunkReq   slave → master   none: the next chunk of a dynamic loop, please
//	chunk      master → slave   u64 lo, u64 hi (little-endian): [lo, hi), lo = hi when done
//	done       master → slave   none: the master's program ended
//	abort      master → slave   the reason, text: the job failed
//	live       master → slave   u32 n, n × u32 ranks, ascending, 0 first: the nodes that share the
//	                            next regions (sent before a region's merged delta when it changed;
//	                            a joining node gets it alone: it is admitted from the next region)
//	leave      master → slave   the reason, text: this node was declared lost; it must exit
//	replay     master → slave   u64: a restarted job replays regions 1..n from the
//	                            checkpoint log (the first message, Seq 0; see durable.go);
//	                            then u64 regions, point name: the image restored at that point
//	image      master → slave   u64 regions, the point's variables, the arena's extent: the
//	                            restarted job's image, at its point (Seq: the regions begun
//	                            before it on this run; durable_point_unsafe.go)
//	join       joiner → master  u64 k: a node joining the running job has replayed regions 1..k
//	                            from the log and found no more; it asks to be admitted (join.go)
//
//	stdinInfo  master → slave   u8 mode (0: none, 1: streamed), u16 port of the input's server (0: the job's)
//	                            (at Init; stdin.go, which also has the input connection's kinds)
//
// An envelope is a u32 length of the values list, the values list, and the
// encoded delta (delta.Decode's format). A values list is a sequence of
// u32-length-prefixed pieces, one per registered reduction or lastprivate
// value, in registration order; a slave's may end with one more piece, the
// output its units printed (output.go).

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/transport"
)

// Message kinds of the job's connection (transport reserves kinds < 16),
// all numbered here, lazy transfer's included (payloads: cape/internal/lazy); kinds
// lists them with the input stream's set-up (stdin.go). Each receive
// expects one kind at a time, but a kind is never reused: a message sent
// out of turn is refused by its number, never read as another.
const (
	kindDelta     uint8 = 16 + iota // slave → master: the slave's delta and values
	kindMerged                      // master → slave: the merged delta and values
	kindChunkReq                    // slave → master: next dynamic chunk please
	kindChunk                       // master → slave: [lo, hi), empty when done
	kindDone                        // master → slave: the job is over
	kindAbort                       // master → slave: the job failed; payload is the reason
	kindLive                        // master → slave: the live set from the next region on
	kindLeave                       // master → slave: declared lost, exit; payload is the reason
	kindReplay                      // master → slave: the first message of a restarted job, u64 the regions it replays
	kindImage                       // master → slave: a restart's image, at its checkpoint point
	kindJoin                        // joiner → master: u64 regions replayed; admit me
	kindLazyHello                   // slave → master: can take lazy pages (lazy.Hello)
	kindLazyInfo                    // master → slave: lazy on, page server port (lazy.Info)
)

// kindInfo describes one message kind of the job's connection.
type kindInfo struct {
	kind uint8
	name string
}

// kinds is every message kind of the job's connection, with its name. A
// test checks that the numbers are unique and that every kind constant of
// the package is here.
var kinds = [...]kindInfo{
	{kindDelta, "delta"},
	{kindMerged, "merged"},
	{kindChunkReq, "chunkReq"},
	{kindChunk, "chunk"},
	{kindDone, "done"},
	{kindAbort, "abort"},
	{kindLive, "live"},
	{kindLeave, "leave"},
	{kindReplay, "replay"},
	{kindImage, "image"},
	{kindJoin, "join"},
	{kindLazyHello, "lazyHello"},
	{kindLazyInfo, "lazyInfo"},
	{kindStdinInfo, "stdinInfo"},
}

// kindName names a message kind of the job's connection, for errors.
func kindName(k uint8) string {
	for _, ki := range kinds {
		if ki.kind == k {
			return ki.name
		}
	}
	return fmt.Sprintf("unknown kind %d", k)
}

// appendEnvelope appends the envelope of vals and d to dst.
func appendEnvelope(dst []byte, d *delta.Delta, vals []byte, c delta.Compression) ([]byte, error) {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(vals)))
	dst = append(dst, vals...)
	return d.AppendBinary(dst, c)
}

// outEnvelope is an envelope to send by reference: its pieces, in order,
// are the values list and the delta's header and table (in head), the
// delta's run data (aliasing the delta) and the trailer. It is reused from
// one region to the next.
type outEnvelope struct {
	head  []byte
	bufs  [][]byte
	trail [4]byte
}

// build makes e the envelope of vals and d, compressed as c, and returns
// its pieces. Uncompressed, the run data is not copied: the pieces are
// valid while d's runs are. Compressed, the envelope is one piece.
func (e *outEnvelope) build(d *delta.Delta, vals []byte, c delta.Compression) ([][]byte, error) {
	clear(e.bufs) // do not pin the last region's data
	e.head = binary.LittleEndian.AppendUint32(e.head[:0], uint32(len(vals)))
	e.head = append(e.head, vals...)
	if c != delta.None {
		var err error
		if e.head, err = d.AppendBinary(e.head, c); err != nil {
			return nil, err
		}
		e.bufs = append(e.bufs[:0], e.head)
		return e.bufs, nil
	}
	head, bufs, trail, err := d.AppendBinaryVec(e.head, append(e.bufs[:0], nil))
	if err != nil {
		return nil, err
	}
	e.head, e.trail = head, trail
	bufs[0] = e.head
	e.bufs = append(bufs, e.trail[:])
	return e.bufs, nil
}

// openEnvelope splits an envelope into its values list (aliasing p) and its
// delta, decoded under lim.
func openEnvelope(p []byte, lim delta.Limits) (vals []byte, d *delta.Delta, err error) {
	d = new(delta.Delta)
	vals, err = openEnvelopeRef(p, d, lim)
	if err != nil {
		return nil, nil, err
	}
	return vals, d, nil
}

// openEnvelopeRef is openEnvelope into d, whose runs then alias p (unless
// the delta is compressed): p must stay unchanged while d is used.
func openEnvelopeRef(p []byte, d *delta.Delta, lim delta.Limits) (vals []byte, err error) {
	if len(p) < 4 {
		return nil, fmt.Errorf("payload of %d bytes is too short", len(p))
	}
	nv := binary.LittleEndian.Uint32(p)
	if uint64(nv) > uint64(len(p)-4) {
		return nil, fmt.Errorf("values length %d exceeds the payload", nv)
	}
	vals = p[4 : 4+nv]
	return vals, delta.DecodeRef(d, p[4+nv:], lim)
}

// checkLabel checks that a decoded delta is labelled with the region and
// node it came for.
func checkLabel(d *delta.Delta, seq uint64, node int) error {
	if d.Region != seq || d.Node != node {
		return fmt.Errorf("delta is labelled region #%d node %d", d.Region, d.Node)
	}
	return nil
}

// pack concatenates length-prefixed pieces.
func pack(pieces func(value) []byte, vals []value) []byte {
	var out []byte
	for _, v := range vals {
		p := pieces(v)
		out = binary.LittleEndian.AppendUint32(out, uint32(len(p)))
		out = append(out, p...)
	}
	return out
}

// unpackValues splits a node's values into the n registered values and,
// when there is one more piece, the output its units printed.
func unpackValues(b []byte, n int) (vals [][]byte, out []byte, err error) {
	vals, err = unpack(b, n+1)
	if err != nil && len(vals) != n {
		return nil, nil, err
	}
	if len(vals) == n+1 {
		return vals[:n], vals[n], nil
	}
	return vals, nil, nil
}

// unpack splits what pack produced into exactly n pieces; when it finds
// fewer, it returns them with its error.
func unpack(b []byte, n int) ([][]byte, error) {
	out := make([][]byte, 0, n)
	for len(b) > 0 {
		if len(b) < 4 {
			return nil, errors.New("truncated value list")
		}
		l := binary.LittleEndian.Uint32(b)
		if uint64(l) > uint64(len(b)-4) {
			return nil, fmt.Errorf("value of %d bytes exceeds the list", l)
		}
		if len(out) == n {
			return nil, fmt.Errorf("more than the %d values this node registered", n)
		}
		out = append(out, b[4:4+l])
		b = b[4+l:]
	}
	if len(out) != n {
		return out, fmt.Errorf("%d values received, this node registered %d", len(out), n)
	}
	return out, nil
}

// chunkPayload is the payload of a chunk message.
func chunkPayload(lo, hi int) []byte {
	p := binary.LittleEndian.AppendUint64(make([]byte, 0, 16), uint64(lo))
	return binary.LittleEndian.AppendUint64(p, uint64(hi))
}

// parseChunk reads a chunk message's payload for a loop of count
// iterations: 0 ≤ lo ≤ hi ≤ count.
func parseChunk(p []byte, count int) (lo, hi int, err error) {
	if len(p) != 16 {
		return 0, 0, fmt.Errorf("chunk message of %d bytes, want 16", len(p))
	}
	l, h := binary.LittleEndian.Uint64(p[:8]), binary.LittleEndian.Uint64(p[8:])
	if l > h || h > uint64(max(count, 0)) {
		return 0, 0, fmt.Errorf("chunk [%d, %d) outside the loop's %d iterations", l, h, count)
	}
	return int(l), int(h), nil
}

// livePayload is the payload of a live message.
func livePayload(live []int) []byte {
	p := binary.LittleEndian.AppendUint32(make([]byte, 0, 4+4*len(live)), uint32(len(live)))
	for _, r := range live {
		p = binary.LittleEndian.AppendUint32(p, uint32(r))
	}
	return p
}

// parseLive reads a live message's payload: a non-empty ascending set of
// ranks that starts with the master, whose ranks are in prev (the live set
// it replaces) or from first on (nodes that joined the running job;
// first ≤ 0: none may have).
func parseLive(p []byte, prev []int, first int) ([]int, error) {
	if len(p) < 4 {
		return nil, fmt.Errorf("live set of %d bytes is too short", len(p))
	}
	n := binary.LittleEndian.Uint32(p)
	room := uint64(len(prev))
	if first > 0 {
		room += maxJoiners
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
		joined := first > 0 && r >= first && r < first+maxJoiners
		if i > 0 && r <= live[i-1] || !joined && (j == len(prev) || prev[j] != r) {
			return nil, fmt.Errorf("live set names node %d, not ascending or not live before", r)
		}
		live[i] = r
		if !joined {
			j++
		}
	}
	if live[0] != 0 {
		return nil, errors.New("live set without the master")
	}
	return live, nil
}

// fromMaster checks a message a slave received in region seq when it
// expects kind want. The master's end of the program, its abort and its
// declaring this node lost come back as ErrJobDone, ErrJobAborted and
// ErrLeft.
func fromMaster(msg transport.Message, want uint8, seq uint64) error {
	switch {
	case msg.Kind == kindAbort:
		return fmt.Errorf("%w (%s)", ErrJobAborted, msg.Payload)
	case msg.Kind == kindLeave:
		return fmt.Errorf("%w (%s)", ErrLeft, msg.Payload)
	case msg.Kind == kindDone:
		return ErrJobDone
	case msg.Kind != want:
		return fmt.Errorf("the master sent message kind %d (%s), want %d (%s)", msg.Kind, kindName(msg.Kind), want, kindName(want))
	case msg.Seq != seq:
		return fmt.Errorf("the master sent a message for region #%d", msg.Seq)
	}
	return nil
}

// fromSlave checks a message the master received from rank in region seq:
// a delta, or (dynamic is true: during a dynamic loop) a chunk request.
func fromSlave(msg transport.Message, rank int, seq uint64, dynamic bool) error {
	switch {
	case msg.Seq != seq:
		return fmt.Errorf("node %d sent message kind %d for region #%d, want #%d", rank, msg.Kind, msg.Seq, seq)
	case msg.Kind == kindDelta, dynamic && msg.Kind == kindChunkReq:
		return nil
	case dynamic:
		return fmt.Errorf("node %d sent message kind %d during a dynamic loop", rank, msg.Kind)
	}
	return fmt.Errorf("node %d sent message kind %d, want a delta", rank, msg.Kind)
}
