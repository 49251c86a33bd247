// Package workkernel holds the kernels of the workloads of cape bench
// (examples/jacobi, heat3d, cg and power) as the hand-written
// message-passing baseline bench/baselines/mpwork runs them: the same
// arithmetic, element by element and in the same order, as the annotated
// examples, over a block of rows, so that every variant prints the same
// bits.
//
// In a nutshell: Random fills the start values from their index (any rank
// fills its block alone), Block is the static schedule of the examples'
// loops (cape's Region.Static split), the sweeps and products work on the
// rows [lo, hi) they are given, and Hash is the FNV-1a hash the examples
// print. Products that two terms could fuse are written with explicit
// float64 conversions, as in the examples, so no compiler fuses them into
// an FMA in one variant only.
//
// Everything here is pure and safe for concurrent use on disjoint rows.
package workkernel
