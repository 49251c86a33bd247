// Package delta owns CAPE's delta format: the byte runs a node wrote in the
// arena during one parallel region, how they are computed, merged, applied and
// encoded.
//
// # In a nutshell
//
// It works as follows:
//
//  1. At region exit each node calls [Diff] once per dirty page, in increasing
//     offset order, with the page as it is now and its twin (the page at
//     region entry, identical on every node). Diff compares eight bytes at a
//     time and appends a [Run] for every stretch of aligned 8-byte words
//     that hold a changed byte, copying those words into the [Delta]'s own
//     buffer; runs of consecutive calls that touch are coalesced. A written
//     int64 array is thus one run, even where the values' high bytes did not
//     change. [AppendFull] appends a page wholesale instead (the
//     "complete checkpoint" baseline).
//  2. The delta is encoded with [Delta.AppendBinary] (optionally compressed)
//     and sent to the master, which decodes it with [Decode] under [Limits].
//  3. The master calls [MergeBase] with a [Base] that reads its twins (see
//     [PagedBase]): a k-way merge of the nodes' sorted runs into their union.
//     Where runs overlap, a byte equal to the entry value was only carried
//     along and a byte that differs was written; two nodes may write the
//     same byte only if they wrote the same value, otherwise MergeBase
//     reports a [*ConflictError]. Without a base every covered byte counts
//     as written, which is right for byte-exact deltas. With a [Rule],
//     [MergeRuleInto] also reports two nodes that wrote different bytes of
//     one variable (1 and 256 into one int64 would merge to 257, a value
//     neither wrote), where [Locations] tells the variables apart, and,
//     for a region that updates memory, two writes of one byte even where
//     they agree.
//  4. Every node calls [Delta.Apply] with the merged delta on its arena. Apply
//     checks every run against the memory before writing any byte. A node
//     need not receive what it wrote itself: [Exclude] gives the merged
//     runs less the bytes a node's own delta already holds (by reference,
//     no copy), which applied on that node's arena gives the same memory.
//
// # Why runs may carry unchanged bytes
//
// Diff's runs cover every changed byte with its new value, and hold the
// entry value at the bytes they carry along. Call a node's value at a byte a
// write if it differs from the entry value E (a write of E itself is
// invisible to every diff, byte-exact or not). For each byte, MergeBase
// keeps the value of the deltas covering it if they agree, else the one
// value among them that is a write, and fails if two writes differ: so the
// merged value is the nodes' common write, or E where no node wrote (a byte
// no delta covers is E on every node too), and the conflicts are exactly
// those of a byte-exact merge (with byte-exact inputs, MergeBase returns
// what it returns without a base). Applied on any node, whose arena holds E everywhere except its own
// writes, the merged delta writes every node's writes and E elsewhere, so
// all nodes end with the same arena as one machine running the region. This
// needs the entry state to be the same on every node (the CAPE invariant)
// and the master's Base to return it, that is its twins before it applies
// the merged delta. With Diff's deltas, runs of two nodes overlap only where
// both wrote parts of one 8-byte word; elsewhere MergeBase copies each run
// once and never reads the base.
//
// # Lifecycle and ownership
//
// A Delta owns one buffer that holds the data of all its runs, in run order;
// the Data of each [Run] is a sub-slice of it. [Delta.Reset] keeps the buffer
// for the next region: the Data slices handed out before it are overwritten
// by later Diff or AppendFull calls. [MergeBase] and [Decode] return new
// deltas that share no memory with their inputs; [MergeBaseInto] and
// [DecodeInto] do the same into a delta whose storage they reuse. A caller
// that keeps its deltas and its encoding buffer from one region to the
// next (Reset, Diff, AppendBinary into buf[:0], DecodeInto, MergeBaseInto)
// allocates nothing once they have grown to the region's size, when the
// encodings are not compressed (a test checks it); compression goes through
// pooled buffers, which a garbage collection may drop.
//
// Four calls avoid copying run data: [Delta.AppendBinaryVec] encodes a
// delta without compression as a header and runs table followed by the
// runs' own Data (for a vectored write), [DecodeRef] decodes an
// uncompressed encoding into runs that alias its source, [MergeBaseRef]
// merges into runs that alias the inputs wherever they do not overlap, and
// [Exclude] selects runs of a merged delta by reference. Their pieces and
// runs are valid only as long as the memory they alias.
//
// The package is pure and deterministic: it makes no system calls, and the
// same inputs always give the same outputs, byte for byte.
//
// # Binary format, version 1
//
// All integers are little-endian. An encoding is a fixed 52-byte header, a
// body (stored as is or compressed as a whole), and a 4-byte trailer:
//
//	offset size field
//	0      4    magic "CAPD" (0x43 0x41 0x50 0x44)
//	4      1    version, 1
//	5      1    compression of the body: 0 none, 1 s2 (block format), 2 zstd
//	6      2    reserved, must be zero
//	8      8    region, uint64
//	16     4    node, int32, -1 (Merged) or a rank >= 0
//	20     4    run count R, uint32
//	24     8    table length T, uint64: bytes of the runs table
//	32     8    payload length P, uint64: bytes of run data (uncompressed)
//	40     8    stored length S, uint64: bytes of the body as stored
//	48     4    header checksum: CRC-32C (Castagnoli) of bytes 0..47
//	52     S    body as stored
//	52+S   4    checksum: CRC-32C of bytes 0..52+S-1 (header and stored body)
//
// The body, once decompressed, is exactly T+P bytes: the runs table followed
// by the payload. The runs table holds, for each of the R runs in increasing
// offset order, two unsigned varints (encoding/binary, minimal length): the
// gap from the end of the previous run (from 0 for the first run) to the
// run's offset, then the run's length. Every length is at least 1, every gap
// after the first run is at least 1 (touching runs are stored as one run), no
// run ends beyond 2^64-1, and the lengths add up to P. The payload is the
// runs' bytes, concatenated in order.
//
// With compression none, S = T+P and the body is stored as is. With s2 the
// body is one s2 block (github.com/klauspost/compress/s2, at most 4 GiB)
// whose declared decoded length must be T+P. With zstd the body is zstd
// data (github.com/klauspost/compress/zstd) that must decode to exactly T+P
// bytes. The encoder's choice for [Auto] is described there.
//
// An encoding is exactly 56+S bytes long: [Decode] rejects trailing bytes.
// It checks, in this order and before allocating anything whose size comes
// from the input: the length, the magic, the version (a mismatch wraps
// [ErrVersion]), the header checksum, the fields (R <= [Limits].MaxRuns and
// P <= [Limits].MaxBytes, else [ErrTooLarge]; R <= P, 2R <= T <= 20R, S
// consistent with the length), and the whole-encoding checksum. Only then
// does it decompress (into a buffer of T+P bytes, never more) and parse the
// table. Every malformation wraps [ErrCorrupt].
package delta
