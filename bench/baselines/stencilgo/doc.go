// Command stencilgo is the one-node shared-memory baseline of `cape bench
// stencil`: the Jacobi iterations of examples/stencil with the interior rows
// of every iteration split in static blocks over -workers goroutines (fork
// and join per iteration, as an OpenMP parallel for does), each goroutine
// returning its largest change, combined by max.
//
// It prints the example's line on stdout and `stencil: iterations X.XXXs` on
// stderr; the timed span is the iterations.
package main
