// Command halogo is the hand-written Go message-passing baseline of `cape
// bench stencil`: what a competent Go programmer writes instead of CAPE to run
// the Jacobi iterations of examples/stencil on several machines over TCP,
// with no library. It moves only what the next iteration reads. With -active
// it runs examples/jacobi instead: every point starts pseudo-random.
//
// Ranks are started like bench/baselines/mpigo's and linked by package
// bench/baselines/mpnet: every rank gets -rank,
// -size and the root's address -addr. Each rank owns a static block of the
// interior rows (the example's schedule(static) split) and keeps the whole
// grid in memory, of which it reads its rows and the two rows around them.
// At start-up every slave dials the root, reporting the port of its own
// listener; the root answers each slave with the address of its upper
// neighbour (rank-1), which the slave dials: rank r is linked to r-1 and r+1.
//
// Every iteration, each rank sweeps its rows, sends its first owned row to
// rank-1 and its last to rank+1 while receiving their boundary rows into its
// halo rows (concurrently, so no ordering can deadlock), and sends its
// largest change to the root, which keeps the maximum (the example's
// reduction(max:diff)). After the last iteration the slaves send their rows
// to the root, which prints the example's line, computed over the whole grid
// in the example's order.
//
// The timed span, reported by rank 0, starts before the first iteration (the
// connections are up, as CAPE's are) and ends when the root holds the whole
// grid. Output: the example's line on stdout (rank 0), `stencil: iterations
// X.XXXs on N rank(s)` on stderr (rank 0), and on stderr from every rank
// `halogo: rank R: compute Xs, communication Ys; per iteration sent S,
// received V bytes` (halo rows and the reduction; the final gather is not
// counted).
package main
