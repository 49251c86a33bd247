// Package ckptlog owns CAPE's durable checkpoint log: the file format, the
// directory it lives in and the key that authenticates it, a writer that
// appends records off the critical path, and a reader that returns the
// intact, authentic prefix of a log whose tail a crash may have torn.
//
// In a nutshell, it works as follows. A job run with `cape run --checkpoint
// DIR` has its master append one record per parallel region to DIR/cape.log
// once the region's merged delta is known. Every region boundary is a
// globally consistent cut (all nodes hold the same arena), so the records
// 1..K are an incremental checkpoint chain and their prefix is always a
// valid recovery line. `--restart` scans the log, drops a torn tail, and
// replays the records (package cape).
//
// # Directory
//
// OpenDir creates DIR with mode 0700 if it is missing and refuses a path
// with a component another user could change (package safedir), a
// directory owned by another user, or that group or others may access, or
// a log file that is not a regular file owned by the user with mode 0600.
// Files are created with mode 0600. The directory's key file (KeyName, 32
// random bytes) is made at the first OpenDir, and held to the same rules.
//
// # Format (version 3)
//
// The log is a sequence of frames, all integers little-endian:
//
//	offset  size  field
//	0       4     magic "CAPL"
//	4       2     version (3)
//	6       1     kind: 1 header, 2 region, 3 image
//	7       1     zero
//	8       8     payload length n (at most the reader's limit)
//	16      4     CRC-32C (Castagnoli) of bytes 0..15, 20..51 and the payload
//	20      32    HMAC-SHA256, keyed by the directory's key, of bytes 0..15 and the payload
//	52      n     payload
//
// A frame is valid only when it is complete and its checksum matches; a
// valid frame whose MAC does not match makes the scan fail (ErrAltered):
// a crash tears frames, it does not forge checksums. Readers check a
// record's MAC again when they read it for replay. The
// first frame is a header (Header: the arena's base address, size and page
// size, and the run that wrote the log: its program, arguments and start);
// then come region frames (Region) with consecutive sequence numbers, each
// the merged result of one region; an image frame (Image: a complete
// copy of the arena and the live variables at a //cape:checkpoint point) may
// replace everything before it, after compaction. Payload layouts are
// documented on AppendRegion and AppendImage.
//
// # Guarantees
//
// The writer only ever appends whole frames to the end of the file, in
// order, and compaction writes a new file that replaces the old one by an
// atomic rename. So a crash at any instant (of the process or of the
// machine) leaves a file whose valid frames form a prefix of what was
// appended: Scan stops at the first frame that is incomplete, has a wrong
// checksum, a wrong magic, version or kind, or a sequence number out of
// order, and reports where the intact prefix ends; Truncate drops the rest
// before new frames are appended.
//
// # Durability (fsync policy)
//
// Writer.AppendRegion copies the record into a reused buffer and queues it
// for the writer goroutine (a large record with no buffer free is written
// by the writer from the caller's memory while the caller waits: see
// AppendRegion). The writer writes a queued frame with write(2) as soon as
// it dequeues it, except that while records come faster than HoldRate it
// holds each up to HoldFor first: a Replace (a compaction) queued meanwhile
// supersedes the records held, which are dropped unwritten. A syncer
// goroutine calls fdatasync after writes, at most once per SyncEvery (group
// commit), while the writer goes on writing; a Replace's new file is synced
// before the rename. The queue is bounded (MaxQueued bytes): a region that
// would exceed it waits for the writer, so the log can fall behind the job
// by at most that much. Close writes what is held and queued, and syncs.
// Hence a crash of the master process loses at most the frames still queued
// or held (about HoldFor's worth; write(2) has put the others in the page
// cache), and a crash of the machine at most those not covered by a
// completed fdatasync (about SyncEvery's worth more); in both cases the
// restart replays a shorter prefix, never a wrong one.
//
// A Writer is safe for use by one goroutine at a time (the master's
// program goroutine); its own goroutine does the I/O.
package ckptlog
