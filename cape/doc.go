// Package cape is the runtime that CAPE programs call: it joins a job, owns
// the node's role (master or slave), places shared data in the arena, and
// runs each parallel region through CAPE's template — start, run my share,
// create, stop, exchange and inject — together with chunking, reductions and
// lastprivate values.
//
// In a nutshell, it works as follows. Every node runs the same program, so
// sequential code runs everywhere and computes the same values. A parallel
// region is entered by all nodes in the same order:
//
//	r := cape.Begin("main.go:42:2")
//	cape.Must(r.Start())           // arm the monitor on the arena
//	for lo, hi, more := r.First(n); more; lo, hi, more = r.Next() {
//		for i := lo; i < hi; i++ { ... } // my block; on the master, then lost nodes' blocks
//	}
//	d, err := r.Create()           // disarm; what I wrote, byte-exact, against the region's entry state
//	cape.Must(err)
//	cape.Must(r.Stop())            // leave the region: allocation allowed again (Stop is End)
//	cape.Must(r.Exchange(d))       // master: gather, merge, inject, send; slave: send, receive, inject
//
// DESIGN's template maps onto these calls as start() = Start, create() =
// Create, which also disarms (the monitor returns the written pages as it
// stops recording), and stop() = Stop (or End), which only leaves the
// region.
//
// When Exchange returns, every node's arena holds what one machine running
// all the iterations would hold. A region's deltas only cover the arena: data
// written in a region must live there (Make, New), which the translator
// arranges for annotated programs.
//
// A region begun while another one runs on this node (a function with its
// own region called from a parallel loop) is nested: as in OpenMP with
// nested parallelism off, the node that reaches it runs all of its
// iterations and sections itself, in order, without communication or a
// monitor of its own; its writes belong to the enclosing region, and its
// reductions and lastprivate values take their sequential values.
//
// A slave lost during a job (crashed, disconnected, silent past the peer
// timeout, or a straggler) does not end it while --max-lost allows: the
// master owns the assignment of every region's units (blocks, chunks,
// sections), commits each slave's delta and values once, and re-executes
// the units of a lost slave in the same region; later regions are split
// over the live set, which the master sends with a region's merged delta
// (reexec.go, membership.go). The master's loss still ends the job.
//
// Arena memory is given back with Free and handed out again,
// deterministically, by later allocations. Types with pointers or slices may
// live in the arena when they point into it: each region's Start, and the
// master after each merge, check it.
//
// With a durable checkpoint log (cape run --checkpoint DIR, durable.go),
// the master appends each region's merged delta, its values, a hash of the
// arena at its entry and the nodes' byte counts to a log (package
// internal/ckptlog); a restarted job (--restart, any node count) runs the
// program again and, for the logged regions, injects the logged result
// instead of computing, checking the entry hash. Checkpoint marks a point
// where the log may be compacted into an image of the arena and the named
// variables (--checkpoint-max, durable_point_unsafe.go).
//
// The runtime ends the process in one place (exit): Must turns an error
// into the node's exit (a slave whose master ended or aborted the job gets
// ErrJobDone or ErrJobAborted from a receive), and the watchdogs and fault
// injection end there too. The launcher's environment is read by package
// nodeenv only.
//
// With lazy transfer (cape run --transfer lazy, internal/lazy) a slave's Exchange
// receives write notices and the bytes it read last time instead of the whole
// merged delta; the pages it lacks are fetched from the master when touched,
// by a helper process (internal/pager). When Exchange returns, the master's
// arena holds what one machine would hold, and every page a slave touches
// reads as it would there.
//
// Init decides the node's set-up in package internal/setup: from the
// launcher's configuration it computes a Plan (the node's role, its
// monitor and checkpoint mode, compression, lazy transfer, the services
// and watchdogs it starts, the start-up phases it follows), which node.go
// carries out: it opens the sockets, starts the goroutines and fills the
// node, one field per feature, nil when the feature is off.
//
// Without a launcher's environment the program runs as a single node, so a
// program written against this package still runs with plain `go run`.
//
// The package keeps one process-wide node; its functions are safe to call
// from the goroutine that runs the program's sequential code. Region methods
// must be called from one goroutine; the region's body may use any number.
package cape
