// Package fault owns fault injection's decisions: it parses CAPE_FAULT
// (the faults a test asks a job to suffer on purpose) into Specs, and
// decides, at each point the runtime passes, which fault fires there.
//
// In a nutshell, it works as follows. Parse turns the variable's value
// into a Set. The runtime calls Set.At at each of its points (init, a
// region's start, ...) with its rank and the region; At returns the fault
// to carry out now, or, at a region's start, a compute fault to carry out
// After the start, and forgets it: each fault fires once. Set.Take hands
// out the fault of a point the runtime arms itself (the master's input
// stream). Carrying a fault out (killing, stopping, exiting the process,
// closing connections) is the runtime's: this package does no I/O.
package fault
