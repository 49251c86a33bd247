// Package bench reproduces the evaluation of the CAPE paper (seed 001,
// section VI: Table I and Figs. 4–6) with this implementation and with the
// baselines a user would compare it to, and writes the results as CSV,
// Markdown tables and SVG plots. `cape bench matmul` is its command line.
//
// In a nutshell, it works as follows. Run builds every variant into a
// temporary directory: examples/matmul through the CAPE translator (the
// same build as cape run), the Go baselines under bench/baselines, and the C
// references bench/c/matmul_{omp,mpi}.c with gcc -fopenmp and mpicc when they
// are installed. All of them run the one kernel of bench/kernel on the same
// deterministic matrices and print the same two lines (a checksum of C, and
// the time of the parallel part). Run then plans every (size, variant, node
// count) cell for every repetition, interleaving the variants and rotating
// their order from one repetition to the next so that the noise of a shared
// machine falls evenly on all of them, executes the plan (CAPE variants
// through internal/launch, the launcher of cape run), checks that every
// checksum of a size is the same, and writes results.csv. The report step
// (Report) aggregates the repetitions (median, min, max), fits the
// performance model of model.go, and writes results.md and the SVG figures.
//
// With Config.Emulate, every node runs in its own cgroup with a CPU quota
// and, when possible, in its own network namespace behind a bandwidth-limited
// veth link on a bridge (emulate_linux.go): an emulated cluster of more
// nodes than the machine has cores. It needs root; without it Run says so and
// stops, and nothing else needs it.
//
// RunStencil (`cape bench stencil`) does the same for the communication-bound
// case, the Jacobi iterations of examples/stencil: the untranslated example
// (seq), bench/baselines/stencilgo (goroutines), the translated example under
// cape run (incremental, complete), and two halo exchanges written by hand,
// bench/baselines/halogo (Go over TCP) and bench/c/stencil_mpi.c (MPI). They
// share bench/stencilkernel's point update, so every run must print the same
// line, whose hash covers every bit of the final grid. ReportStencil writes
// the times, paired ratios, bytes per iteration and the --stats breakdown.
// RunStencil also runs the other Workloads (workload.go): examples/jacobi
// (the same sweep, every point active), heat3d, cg and power, each beside
// its hand-written Go message passing (halogo -active, bench/baselines/
// mpwork over mpnet). Every process runs under bench/rsswrap for its peak
// RSS. Config.Prebuilt takes the binaries of matmul and of the workloads
// from a directory that Prebuild (`cape bench build`) filled, for a machine
// without Go.
// RunRegions (`cape bench regions`) times bench/regions, thousands of tiny
// regions in a row, to report the fixed cost of a region. Each benchmark has
// its own results.csv header; ReportDir tells them apart.
//
// Nothing in this package is safe for concurrent use; Run executes one
// variant at a time, by design.
package bench
