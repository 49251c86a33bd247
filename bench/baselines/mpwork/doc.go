// Command mpwork is the hand-written Go message-passing baseline of the
// workloads of cape bench that have no halogo of their own: heat3d, cg and
// power (-workload). It runs the kernels of bench/workkernel, element by
// element as the annotated examples do, over a static block of the
// examples' loop per rank, linked by bench/baselines/mpnet, and prints the
// example's line: the bench checks that every variant prints the same.
//
//   - heat3d: each rank owns a block of the interior planes, and touches
//     only those and the two planes around them; every step it sends its
//     first and last planes to its neighbours and receives theirs.
//   - cg: each rank owns a block of the rows of the CSR Poisson matrix;
//     every iteration it sends the first and last m entries of its part of
//     p to its neighbours (the matrix's bandwidth), and the two dot
//     products are allreduced (in fixed point, as in the example).
//   - power: each rank owns a block of the matrix's rows (and generates
//     only those); every iteration the maximum is allreduced and the new x
//     allgathered through the root.
//
// Ranks get -rank, -size and the root's address -addr, as halogo's do. The
// timed span starts before the first iteration (connections up, data
// filled) and ends when the root holds the result. Output: the example's
// line on stdout and `NAME: iterations Xs on N rank(s)` on stderr (rank
// 0), and from every rank `mpwork: rank R: compute Xs, communication Ys;
// per iteration sent S, received V bytes` (the final gather not counted).
package main
