// Package kernel is the one matrix-product kernel that every Go variant of
// the benchmark runs: the int64 naive triple loop of the CAPE paper, the
// deterministic fill of A and B, the checksum of C and the static block split
// of the rows. The bodies of Fill, Multiply and Checksum are textually those
// of examples/matmul (a test checks it), and bench/c/matmul.h is their C
// transcription, so every variant computes the same product and prints the
// same checksum.
//
// Everything here is pure and safe for concurrent use on disjoint rows.
package kernel
