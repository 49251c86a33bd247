// Package stats owns the text of `cape run --stats`: the line each node
// prints for every region (its timings, its bytes and the notes of the
// region's loop, page faults and hints) and the batching of those lines
// into few writes. It takes plain values and returns text: it holds no
// pointer into the runtime, never exits, and writes only to the io.Writer
// it is given.
//
// In a nutshell, it works as follows. The runtime measures a region
// (package cape), fills a Region with the numbers and asks AppendRegion for
// its line; the notes (FaultNote, HintNote, and the roster's note, which
// package roster formats) end the line. Lines go to a Log, which writes
// them out once enough are pending or some time has passed since the last
// write, and when the node ends (Flush).
//
// Tests in cmd/cape parse these lines: their text is a contract.
package stats
