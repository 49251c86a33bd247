// Command goroutines is the one-node shared-memory baseline of the benchmark
// (the OpenMP column of the CAPE paper's Table I, written the way Go does
// it): the rows of C are split in static blocks over -workers goroutines.
//
// It prints `matmul n=N checksum=…` on stdout and `matmul: parallel part
// X.XXXs` on stderr, like examples/matmul; the timed span is from before the
// first goroutine starts to after the last one has finished.
package main
