// Package homes owns the master's directory of distributed homes: for every
// page of the arena, which version is current, which node holds it (its
// home) and which nodes hold copies, and what must move between nodes at a
// region's end, on a node's first touch of a page, and when a node is lost.
// It is home-based lazy release consistency (TreadMarks, ArgoDSM) with
// CAPE's region ends as the release points, written as a state machine that
// does no I/O, reads no clock and holds no page data beyond the runs of
// multiple-writer pages it merges (etcd raft's model). docs/homes.md is the
// design note.
//
// # In a nutshell
//
// It works as follows:
//
//  1. [New] makes a directory for a job of Nodes ranks; rank 0 is the
//     master, which runs the directory. Every page starts at version 0, the
//     zero page, resident nowhere: a node touching it maps zeros.
//  2. A region instance begins ([Begin], with its sequence number and its
//     site, the directive it comes from). The directory answers with
//     [Share] hints: the pages that several nodes wrote in the previous
//     instance of the same site, whose runs those nodes should send with
//     their notices.
//  3. A node's first access to a page it does not hold at the current
//     version ([Touch]) is a [Fetch] from the page's holder (or a zero
//     page). The directory records the node as holding the version.
//  4. At the region's end every live node sends a [Notice]: the pages it
//     wrote and, for pages it was asked to share, their byte runs with the
//     entry bytes under them, plus its opaque values (reductions,
//     lastprivate). A page written by one node gets a new version (the
//     region's sequence number) homed at that node: no byte moves. A page
//     written by several nodes must meet: the directory asks for the runs
//     it lacks ([Collect], answered by [Runs]) and merges them byte-exact
//     with package delta's rule (two nodes writing different values to one
//     byte is a conflict; a byte equal to its entry value was carried, not
//     written), which reports a [Conflict] or a [Merged] delta for the
//     writers, the lowest of which becomes the home.
//  5. The region then releases: stale copies are dropped ([Invalidate]),
//     pages that a node learned for the region's site are pushed to it
//     ([Push]), pages homed on one slave only are replicated to its buddy
//     off the critical path ([Replicate], confirmed by [Replicated]), and
//     [Release] hands the driver the nodes' values.
//     (A fetch of a page some region wrote teaches the directory that the
//     node reads it after regions of that site: every later instance of the
//     site that writes the page pushes it to the node instead of
//     invalidating it.)
//  6. A lost node ([Lost]) leaves: a page it homed is rehomed at another
//     node holding the current version ([Rehome]), or recovered from the
//     buddy's replica when that is current ([Recover]); otherwise the job
//     must roll back ([Rollback]) and the directory refuses further events.
//     A node lost in an open region is [Discard]ed: its notice, if sent,
//     is dropped, its units are re-run by the master, which sends its
//     notice (again) afterwards.
//
// Pages move only as the actions say, so a page a node never touches is
// never resident on it ([Dir.Resident]).
//
// # Model of sequential code
//
// Versions change only at region ends. Sequential code between regions runs
// the same writes on every node that runs it; a node that does not hold a
// page at the current version faults on its first access and fetches the
// page as of the last region's end (the holder serves a snapshot between
// regions and its twin, the entry state, during a region), then replays
// the same writes. So sequential writes need no version, whichever nodes
// run the sequential code.
//
// A [Dir] is not safe for concurrent use; the driver serialises Step.
package homes
