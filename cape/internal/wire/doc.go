// Package wire owns the runtime's wire protocol: every message kind the
// nodes of a job exchange (on the job's connection and on the input
// stream's), their numbers, names and directions, the encoders and
// decoders of their payloads with the checks each received payload passes,
// and the job's start-up sequence as data.
//
// In a nutshell, it works as follows. Kinds is one table: each entry is a
// kind's number on its connection, its name, who sends it to whom, and its
// decoder, which takes a payload and what the receiver knows (Limits) and
// returns the payload's value or an error; every value re-encodes with
// Append. The runtime (package cape) calls the typed encoders and parsers
// directly (ChunkPayload, ParseChunk, OpenEnvelope, ...); the table ties
// them to their kinds, for the protocol's tests and its fuzz target
// (FuzzDecode). Startup lists the messages of a job's start, in order,
// with the condition under which each phase runs; master and slaves follow
// it, so that both sides agree by construction.
//
// Every message of the job's connection carries the region it belongs to
// in transport.Message.Seq (the job's count of regions begun); the set-up
// messages carry 0. Numbers are little-endian. The package does no I/O,
// holds no state beyond its tables, and never panics on a peer's bytes.
//
// The payloads (see Kinds for the numbers):
//
//	kind       from → to        payload
//	delta      slave → master   envelope: the slave's delta and its values' partials
//	merged     master → slave   envelope: the merged delta less the slave's own bytes
//	                            (incremental; complete: the whole arena), and the values' results;
//	                            with lazy transfer on, a lazy merged payload (cape/internal/lazy)
//	chunkReq   slave → master   none: the next chunk of a dynamic loop, please
//	chunk      master → slave   u64 lo, u64 hi: [lo, hi), lo = hi when done
//	done       master → slave   none: the master's program ended
//	abort      master → slave   the reason, text: the job failed
//	live       master → slave   u32 n, n × u32 ranks, ascending, 0 first: the nodes that share the
//	                            next regions (sent before a region's merged delta when it changed;
//	                            a joining node gets it alone: it is admitted from the next region)
//	leave      master → slave   the reason, text: this node was declared lost; it must exit
//	replay     master → slave   u64 n: a restarted job replays regions 1..n from the
//	                            checkpoint log (a start-up message, Seq 0);
//	                            then u64 regions, point name: the image restored at that point
//	image      master → slave   u64 regions, the point's variables, the arena's extent: the
//	                            restarted job's image, at its point (Seq: the regions begun
//	                            before it on this run)
//	join       joiner → master  u64 k: a node joining the running job has replayed regions 1..k
//	                            from the log and found no more; it asks to be admitted
//	lazyHello  slave → master   u8: 1 if this slave can take lazy pages
//	lazyInfo   master → slave   u8 on (1: lazy transfer for the whole job), u16 page server port
//	stdinInfo  master → slave   u8 mode (0: none, 1: streamed), u16 port of the input's server (0: the job's)
//
// On the input stream's own connection (Seq carries a byte offset):
//
//	stdinData  master → slave   the input's bytes from offset Seq on
//	stdinEnd   master → slave   u64 the input's size (also in Seq)
//	stdinAck   slave → master   u64 bytes fed to the program so far (also in Seq)
//
// An envelope is a u32 length of the values list, the values list, and the
// encoded delta (delta.Decode's format). A values list is a sequence of
// u32-length-prefixed pieces, one per registered reduction or lastprivate
// value, in registration order; a slave's may end with one more piece, the
// output its units printed.
package wire
