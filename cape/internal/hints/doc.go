// Package hints owns the runtime's side of what the translator proves about
// a parallel region so that the monitor compares less memory: the arena
// spans the region writes in (cape.WritesIn), and whether the sequential
// stretch before its Start wrote nothing the monitor must look for (the
// region is the only one of a loop whose other code writes no arena memory,
// cape.Region.InLoop).
//
// In a nutshell, it works as follows. A region's Proof collects what the
// generated code announces after Begin: its Loop, and the byte ranges of the
// slices it writes in, clipped to the arena (a Proof keeps up to two spans
// without allocating). The node keeps one Gap: the loop and number of the
// last outermost region that stopped, and whether the runtime has since
// written the arena without telling the monitor (a restored image, a
// replayed delta, an allocation handed out again, a joiner's catch-up, a
// reduction's result stored in the arena). At Start, Proof.Hint decides:
// the stretch is clean only when the region is of the same loop entry as
// the last one, is the very next region, nothing dirtied the gap, and
// --verify (which rewrites the arena between regions) is off. When the
// region stops, Gap.Ended starts the next stretch.
//
// A Proof belongs to its region and a Gap to its node; neither is safe for
// concurrent use, and neither holds a reference to them. Nothing here
// prints, panics or exits.
package hints
