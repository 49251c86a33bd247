package wire

import (
	"fmt"

	"github.com/cape-go/cape/transport"
)

// Message kinds of the job's connection (transport reserves kinds below
// transport.MinKind). Each receive expects one kind at a time, but a kind
// is never reused: a message sent out of turn is refused by its number,
// never read as another.
const (
	Delta      uint8 = 16 + iota // slave → master: the slave's delta and values
	Merged                       // master → slave: the merged delta and values
	ChunkReq                     // slave → master: next dynamic chunk please
	Chunk                        // master → slave: [lo, hi), empty when done
	Done                         // master → slave: the job is over
	Abort                        // master → slave: the job failed; payload is the reason
	Live                         // master → slave: the live set from the next region on
	Leave                        // master → slave: declared lost, exit; payload is the reason
	Replay                       // master → slave: a restarted job's regions to replay (start-up)
	Image                        // master → slave: a restart's image, at its checkpoint point
	Join                         // joiner → master: u64 regions replayed; admit me
	LazyHello                    // slave → master: can take lazy pages (start-up)
	LazyInfo                     // master → slave: lazy on, page server port (start-up)
	Notice                       // slave → master: pages written, shared pages' bytes, values (homes)
	Collect                      // master → slave: shared pages still needed (homes)
	Runs                         // slave → master: the shared pages asked for (homes)
	Release                      // master → slave: the written pages' holders, merged runs, values (homes)
	Finished                     // slave → master: its program ended; it serves its pages until done (homes)
	HomesReady                   // slave → master: its helper is connected to every page server (start-up)
	HomesGo                      // master → slave: every helper is connected; go on (start-up)

	StdinInfo uint8 = 56 // master → slave: how the job reads standard input (start-up)
)

// Message kinds of the input stream's own connection, numbered apart from
// the job's (a message of one connection never arrives on the other).
const (
	StdinData uint8 = transport.MinKind + iota // master → slave: the bytes from offset Seq on
	StdinEnd                                   // master → slave: the end; u64 the input's size
	StdinAck                                   // slave → master: u64 bytes fed to the program so far
)

// A Conn names the connection a kind travels on.
type Conn uint8

const (
	JobConn   Conn = iota // the job's connection
	StdinConn             // the input stream's connection
)

// A Role is a side of a connection.
type Role uint8

const (
	Master Role = iota
	Slave
	Joiner // a node joining the running job (a slave not yet admitted)
)

func (r Role) String() string {
	switch r {
	case Master:
		return "master"
	case Slave:
		return "slave"
	case Joiner:
		return "joiner"
	}
	return fmt.Sprintf("role %d", uint8(r))
}

// A KindInfo describes one message kind: its number on its connection,
// its name, its sender and receiver, and its payload's decoder.
type KindInfo struct {
	Kind     uint8
	Conn     Conn
	Name     string
	From, To Role
	// Decode checks a received payload against what the receiver knows
	// and returns its value, which re-encodes with Append.
	Decode func(p []byte, lim *Limits) (Payload, error)
}

// Kinds is every message kind of a job, with its payload's decoder. The
// numbers are unique on each connection (a test checks it).
var Kinds = [...]KindInfo{
	{Delta, JobConn, "delta", Slave, Master, decodeDeltaMsg},
	{Merged, JobConn, "merged", Master, Slave, decodeEnvelope},
	{ChunkReq, JobConn, "chunkReq", Slave, Master, decodeEmpty},
	{Chunk, JobConn, "chunk", Master, Slave, decodeChunk},
	{Done, JobConn, "done", Master, Slave, decodeEmpty},
	{Abort, JobConn, "abort", Master, Slave, decodeText},
	{Live, JobConn, "live", Master, Slave, decodeLive},
	{Leave, JobConn, "leave", Master, Slave, decodeText},
	{Replay, JobConn, "replay", Master, Slave, decodeReplay},
	{Image, JobConn, "image", Master, Slave, decodeImage},
	{Join, JobConn, "join", Joiner, Master, decodeJoin},
	{LazyHello, JobConn, "lazyHello", Slave, Master, decodeLazyHello},
	{LazyInfo, JobConn, "lazyInfo", Master, Slave, decodeLazyInfo},
	{Notice, JobConn, "notice", Slave, Master, decodeNotice},
	{Collect, JobConn, "collect", Master, Slave, decodeCollect},
	{Runs, JobConn, "runs", Slave, Master, decodeRuns},
	{Release, JobConn, "release", Master, Slave, decodeRelease},
	{Finished, JobConn, "finished", Slave, Master, decodeEmpty},
	{HomesReady, JobConn, "homesReady", Slave, Master, decodeEmpty},
	{HomesGo, JobConn, "homesGo", Master, Slave, decodeEmpty},
	{StdinInfo, JobConn, "stdinInfo", Master, Slave, decodeStdinInfo},
	{StdinData, StdinConn, "stdinData", Master, Slave, decodeText},
	{StdinEnd, StdinConn, "stdinEnd", Master, Slave, decodeU64},
	{StdinAck, StdinConn, "stdinAck", Slave, Master, decodeU64},
}

// Lookup returns the entry of kind k on connection c.
func Lookup(c Conn, k uint8) (*KindInfo, bool) {
	for i := range Kinds {
		if Kinds[i].Conn == c && Kinds[i].Kind == k {
			return &Kinds[i], true
		}
	}
	return nil, false
}

// Name names a message kind of the job's connection, for errors.
func Name(k uint8) string {
	if ki, ok := Lookup(JobConn, k); ok {
		return ki.Name
	}
	return fmt.Sprintf("unknown kind %d", k)
}

// Decode checks payload p of kind k received on connection c against lim
// and returns its value.
func Decode(c Conn, k uint8, p []byte, lim *Limits) (Payload, error) {
	ki, ok := Lookup(c, k)
	if !ok {
		return nil, fmt.Errorf("unknown message kind %d", k)
	}
	v, err := ki.Decode(p, lim)
	if err != nil {
		return nil, fmt.Errorf("%s message: %w", ki.Name, err)
	}
	return v, nil
}
