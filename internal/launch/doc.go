// Package launch owns starting a job's nodes and seeing them end: it creates
// the job's token and listener, starts one process per node with the
// environment of package nodeenv, multiplexes their output, and stops every
// node when one fails, when the master ends, or when the user interrupts.
//
// In a nutshell: Local binds the master's listening socket itself (so the
// slaves' address is known before any node starts), passes it to rank 0 as
// an inherited file, passes the token to every node on an inherited pipe,
// and starts the nodes in their own process groups with a parent-death
// signal. The master's stdout is the job's output; the slaves' stdout is
// dropped unless asked for; every slave's stderr is shown, prefixed with its
// rank. The first node to fail stops the job: the others get SIGTERM, then
// SIGKILL after a grace period, and the error names the node.
package launch
