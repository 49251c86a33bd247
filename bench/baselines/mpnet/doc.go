// Package mpnet is the little message passing that the hand-written Go
// baselines of cape bench share (bench/baselines/halogo, mpwork): ranks
// linked over TCP, with no library, as a competent Go programmer would
// write it instead of using CAPE.
//
// In a nutshell, it works as follows. Every rank gets its rank, the number
// of ranks and the root's address. At Connect every slave dials the root,
// reporting the port of its own listener; the root answers each slave with
// the address of its upper neighbour (rank-1), which the slave dials: rank
// r is linked to the root and to r-1 and r+1. Halo exchanges messages with
// the two neighbours; Reduce and Allreduce combine one word per rank on the
// root (and send it back); Gather collects every rank's block on the root;
// Finish closes the job so that no unread byte resets a connection. The
// iterations' bytes are counted in a Counter.
//
// A Links is not safe for concurrent use. Nothing here exits the process or
// prints: errors are returned.
package mpnet
