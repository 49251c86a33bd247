// Command mpigo is the hand-written Go message-passing baseline of the
// benchmark: what a competent Go programmer writes instead of CAPE to run the
// matrix product on several machines over TCP, with no library.
//
// Every rank fills A and B itself (as with CAPE, where the sequential code
// runs on every node), computes its static block of rows of C, and the
// slaves send their rows to rank 0 as raw little-endian int64s over one TCP
// connection each. Then, to give every rank the whole of C as CAPE does,
// rank 0 sends C back to every slave (-gather-only skips that step, which is
// what a program needing C on rank 0 only would do).
//
// The timed span, reported by rank 0, starts before the product (the
// connections are already set up, as CAPE's are) and ends when rank 0 holds
// C and has written it to every slave's socket: the span of examples/matmul
// under cape run. Output: `matmul n=N checksum=…` on stdout (every rank),
// `matmul: parallel part X.XXXs` on stderr (rank 0).
package main
