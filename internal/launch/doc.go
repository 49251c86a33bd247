// Package launch owns starting a job's nodes and seeing them end: it creates
// the job's token and listener, starts one process per node with the
// environment of package nodeenv, multiplexes their output, and stops every
// node when one fails, when the master ends, or when the user interrupts.
//
// In a nutshell, it works as follows. Local (local.go) binds the master's
// listening socket itself (so that the slaves' address is known before any
// node starts), passes it to rank 0 as an inherited file, passes the token
// to every node on an inherited pipe, and starts the nodes in their own
// process groups with a parent-death signal; the descriptors a node inherits
// are numbered in one place (inherited). SSH (ssh.go) starts the master the
// same way and each slave through the system ssh client, after copying the
// program into a private directory on each host, checked by SHA-256
// (remotecopy.go, which states what a user of a host can and cannot do).
//
// The supervisor (supervise.go) watches the nodes of either launcher. The
// master's stdout is the job's output; the slaves' stdout is dropped unless
// asked for; every slave's stderr is shown, prefixed with its rank. A slave
// that fails, or stays stopped for the peer timeout (it is then killed),
// while the master has not failed, is reported on the job's stderr and the
// job goes on, up to nodeenv.Config.MaxLost such losses (the runtime
// re-executes the slave's work). Otherwise the first node to fail stops the
// job: the others get SIGTERM, then SIGKILL
// after a grace period. The error names the node the evidence points to, in
// this order: a node stopped (hung), a node killed by a signal, the node
// named in the master's report (else a slave's) on the status pipe
// (nodeenv.StatusFD: a failing node writes one line saying which peer its
// error is about), the one node still running when every other had ended,
// and only then the first to end. A local node that stays stopped for the
// peer timeout is declared hung wherever the job is, set-up included.
package launch
