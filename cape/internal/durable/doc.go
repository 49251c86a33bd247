// Package durable owns the policy of CAPE's durable checkpoint log (cape run
// --checkpoint DIR, --restart, cape join): what the master appends for each
// region and when it stops, the bound on the log's bytes and the compaction
// of the log into an image at a //cape:checkpoint point, the replay of a log
// (reading a region's record and checking it against the run that replays
// it), the checks an image passes before it is restored, and the arena hash
// that ties a record to the arena it was taken from. The file format, the
// directory, the key and the writer goroutine are package ckptlog's; the
// transport of replayed results and images to the slaves, and the writes
// into the arena, are package cape's.
//
// In a nutshell, it works as follows. Every region boundary is a consistent
// cut of the job (all arenas are equal there), so the log's intact prefix is
// always a valid recovery line.
//
//   - A checkpointing master opens a Log (Open). At each region's end it
//     calls Append with a function that builds the region's record; the Log
//     appends it unless logging stopped, is suspended at the bound, or a
//     restart's image is still pending. Without --checkpoint-max the bound
//     grows with the arena's extent (Bound).
//   - At a checkpoint point (Point) the Log replaces the whole log by an
//     image of the arena and the point's variables when the log nears the
//     bound (CompactAt), or when logging was suspended at the bound.
//   - A restart (Open with Restart) scans the log, drops a torn tail, and
//     prepares its replay: Logged says how many regions are replayed,
//     Pending the image the log starts with, if any. For each replayed
//     region Replay returns the record and its merged delta once the
//     region's name, the arena's extent and the arena's hash at entry match
//     the record, and the record's consistency counts hold; Injected (or
//     Restored, for an image) records the arena the region left, against
//     which a chained record (ChainedHash) is checked.
//   - A joining node replays the log it follows the same way (OpenJoin).
//
// The arena hash (ArenaHash) hashes each page and combines the page hashes
// in page order; pages the system reports never populated (Unpopulated)
// take the hash of a zero page without being read. A live master hashes the
// arena at a region's entry in the background (StartHash) from the twins of
// the pages it wrote, while it waits for the slaves.
//
// A Log is used from the program's goroutine only, except JoinerArrived
// and JoinerDecided, which may be called from any goroutine.
package durable
