// Package stencilkernel is the one 2-D Jacobi kernel that every Go baseline
// of `cape bench stencil` runs: the per-point update of examples/stencil, its
// hot top edge, its output line (sums, the last iteration's largest change
// and a hash of the bits of every point) and the static block split of its
// interior rows. The point update and the output loop are textually those of
// examples/stencil (a test checks it), and bench/c/stencil.h is their C
// transcription.
//
// Jacobi reads only the previous grid, so the order in which points are
// updated does not change any of them: every variant that evaluates each
// point's expression identically ends with a bit-identical grid, whichever
// rows each node or goroutine owns. The output line's sums are taken in one
// fixed order over the whole grid (after a gather, for the distributed
// baselines), so the line is identical too.
//
// Everything here is pure and safe for concurrent use on disjoint rows.
package stencilkernel
