// Package exchange owns what the end-of-region exchange computes, apart
// from moving bytes: the checkpoint modes (what a node's delta holds and
// what the master sends back: incremental or complete), the master's merge
// of its own delta with the committed slaves' ones, what each slave is
// sent (the merged delta less the bytes of its own delta), the limits a
// received delta is decoded under, and the preparation of an injection.
// It holds no pointer into the runtime, no socket and no clock; it never
// exits and never prints. Package cape
// drives it: it gathers and decodes the slaves' messages, injects the
// merged delta into the arena and sends the results.
//
// In a nutshell, it works as follows. On every node the Mode's Create
// turns the pages the monitor found written into a delta against their
// twins. On the master, each slave's decoded delta goes through the
// Mode's Received (the complete mode's whole pages become the bytes that
// changed), and Master.Merge merges the master's delta with the committed
// slaves' in rank order, against the master's twins (a byte two nodes
// wrote with different values is a *delta.ConflictError naming both).
// The master then sends every slave the Mode's Outgoing delta (the
// complete mode: the whole extent, broadcast) or, incrementally, each its
// own Master.LessOwn delta: no node receives bytes it wrote. Before any
// node injects a delta, Prepare tells the monitor of the bytes about to
// be written and populates large runs.
//
// # Lifecycle
//
// A node keeps one Master from one region to the next: Grow sizes it for
// the job, Merge and LessOwn fill it for a region, Release empties it
// once the results are sent. Once it has grown to the job's deltas, a
// region's exchange allocates nothing in it. The deltas it returns alias
// its inputs (the received payloads, the node's own delta): they are valid
// until Release, and only while those inputs are.
package exchange
