// Package monitor owns one question of CAPE's checkpointer: which pages of
// the arena did this node write during a parallel region, and what did they
// hold when the region began (their twins)?
//
// In a nutshell, it works as follows. A Tracker watches one memory range,
// the whole arena mapping, of which a prefix (the extent) is in use. Start
// marks a region's entry: from then on every page below the extent has a
// twin, a copy of its content at entry. Stop marks the exit and returns the
// written pages; the caller diffs each against its twin to build a
// byte-exact delta. Twins are persistent: a backend that knows which pages
// changed since the last Start (uffd) refreshes only those, so no region
// pays a full copy; writes made between regions (sequential code, injected
// deltas) refresh the twins at the next Start and never appear in a Stop.
//
// # Backends
//
//   - uffd (Linux 6.7+, the default where it works): the arena is registered
//     with userfaultfd in asynchronous write-protect mode
//     (UFFD_FEATURE_WP_ASYNC|WP_UNPOPULATED, UFFD_USER_MODE_ONLY, so no
//     privilege is needed). The kernel unprotects a page at its first write
//     without any signal or handler thread; the PAGEMAP_SCAN ioctl on
//     /proc/self/pagemap lists the written pages and re-protects them in the
//     same walk. Exact; a write fault costs ~0.8 µs, and a written page
//     1.3–2 µs in all with the refresh of its twin (see Measured); a clean
//     page costs ~2 ns per scan. When a region writes most of its extent,
//     the next ones are compared against the twins instead of taking a fault
//     per page (adaptive).
//   - compare (every OS): Start copies the extent into the twin, Stop
//     compares memory with it page by page. Reports pages whose content
//     changed: a page rewritten with its old bytes is not reported, and
//     contributes nothing to a delta anyway. Costs a copy and a compare of
//     the whole extent per region.
//   - complete (every OS): like compare at Start, but Stop reports every page
//     below the extent: the paper's complete-checkpoint baseline.
//   - ptrace (Linux amd64; selectable, never picked by auto): the paper's
//     mechanism. Start makes [0, extent) read-only. A helper process traces
//     every thread of this one (PTRACE_SEIZE, following new threads); at a
//     first write (SIGSEGV in the arena) it copies the page into twins
//     shared through a memfd, makes the page writable by injecting mprotect
//     into the faulting thread, and retries the write without delivering
//     the signal; every other signal passes through. A fault costs 40–90
//     µs, so each one saves the twins of and unprotects the whole aligned
//     block of Options.PtraceBlock pages around the faulting page (default
//     16, see Measured); Stop reports the faulting pages and those of their
//     blocks whose content differs from the twin, so the result stays
//     exact up to pages rewritten with their own bytes, as for compare.
//     When mappings run out (vm.max_map_count) it unprotects the extent and
//     Stop compares the rest, still exact. Limitations: the
//     kernel cannot write into the protected arena (read(2) into it fails
//     with EFAULT), and Twin of a page the region did not write reads the
//     arena, so call it before writing the arena again.
//   - auto: uffd when a probe (run once per process) succeeds, else compare;
//     Options.Notice is told which and why.
//
// # Memory
//
// The memory handed to New must be page-aligned and a whole number of pages.
// For uffd it must be one private anonymous mapping (mmap MAP_PRIVATE|
// MAP_ANONYMOUS, MAP_NORESERVE welcome) mapped for the tracker's lifetime.
// Registration covers the whole mapping; only [0, extent) is write-protected,
// so a multi-GiB reservation costs page tables only for the part in use.
// Transparent huge pages are fine: the kernel splits a huge page at its
// first tracked write. Writes by the kernel into the arena (read(2) from a
// socket) are tracked like any other.
//
// # The ptrace helper
//
// The helper is this same binary re-executed with CAPE_MONITOR_PTRACE_HELPER
// in its environment: this package's init function sees the variable and
// runs the helper instead of main. It exits when the tracker is closed or
// the node dies, which detaches it. Under Yama (kernel.yama.ptrace_scope=1)
// the node names the helper with PR_SET_PTRACER; scope 2 needs
// CAP_SYS_PTRACE and scope 3 forbids the backend.
//
// # Lifecycle
//
//	t, err := monitor.New("auto", arena, monitor.Options{Notice: log})
//	for each region {
//		t.Start(extent)           // arena quiescent
//		... parallel code writes ...
//		pages, err := t.Stop()    // arena quiescent again
//		for _, p := range pages { diff(arena page p, t.Twin(p)) }
//		... inject merged delta, run sequential code ...
//	}
//	t.Close()
//
// Trackers are not safe for concurrent use; the memory they watch may be
// written by any number of goroutines and threads between Start and Stop,
// and by nothing while Start or Stop runs. The slice Stop returns and the
// twins stay valid until the next Start. Close releases the descriptors and
// the twins; the tracked memory stays mapped and writable.
//
// # Measured
//
// 2026-11-22, a shared 2-vCPU VM (Intel Xeon @ 2.50GHz, 24 GiB, Linux
// 6.18.44, THP "madvise", Go 1.26.8), medians of 5 runs; the machine is
// noisy (runs of one benchmark differ by up to 30 %, memory copies at only
// 3–4 GB/s). Command, from the module root:
//
//	go test ./monitor -run '^$' -bench . -count 5 | tee bench.txt
//	benchstat bench.txt
//
// Start+Stop of one region on a 256 MiB extent (65536 pages) with one byte
// written on 0, 1, 10 or 100 % of its pages, and ns per dirty page (the
// region's time over the pages written) at 1 % and 100 %
// (BenchmarkStartStop); then the slowdown of a dense loop writing every
// int64 of the memory, Start+loop+Stop against the same loop on unmonitored
// memory (BenchmarkDenseLoop): "mem" does one add per int64 (64 MiB,
// memory-bound), "k16" and "k64" are rows of an integer matrix product
// with an inner dimension of 16 and 64, i.e. 16 and 64 multiply-adds per
// int64 written (16 MiB):
//
//	backend       ns/dirty page    Start+Stop (ms) at dirty =      dense loop ratio
//	              1 %     100 %    0 %    1 %   10 %   100 %     mem    k16    k64
//	uffd          1822    1261     0.27   1.19  12.9    82.6     2.93   1.21   1.06
//	compare       205k    1581     128    134   125     104      2.88   1.21   1.05
//	complete      144k    2238     164    94    130     147      2.90   1.19   1.03
//	ptrace (B16)  138k    6099     20     90    542     400      6.37   1.60   1.26
//	ptrace B1     88k     54777    21     58    382     3590     46.0   5.47   2.54
//	ptrace B4     85k     16668    17     56    467     1092     -      -      -
//	ptrace B64    289k    3890     22     189   274     255      4.32   1.38   1.09
//
// uffd with its mode forced, same loops: always faults 4.38, 1.34, 1.10;
// always compare 2.70, 1.20, 1.01. The adaptive default follows the better
// of the two.
//
// The target was ≤ 1 µs per dirty page and ≤ 1.05× on a dense loop. A
// uffd write fault costs 0.78 µs (65536 faults on populated pages, apart
// from Start and Stop) and a clean page 2 ns per scan, so tracking alone
// meets the first target; what a dirty page costs on top is the refresh of
// its 4 KiB twin at the next Start, about 1 µs at this machine's copy
// bandwidth, and every backend pays it (compare copies every page). The
// memory-bound loop cannot reach 1.05× with any scheme that keeps
// byte-exact twins: it writes a page in 0.63 µs (10.2 ms for 64 MiB), less
// than copying the page once, and a page fault costs more again; uffd adds
// 1.19 µs per page (2.9×), and comparison, which takes no fault, 1.2 µs.
// With real work per element the fixed cost per page is amortized: 1.21×
// at 16 multiply-adds per int64 and 1.06× (compare mode 1.01×) at 64. The
// paper's matrix products (inner dimension 3000 to 12000) are far beyond.
//
// Other uffd measurements: huge pages for the twin (adviseTwin) make the
// first Start of a 256 MiB extent 133–144 ms instead of 200–233 ms and do
// not change later regions (uffd-smalltwins in BenchmarkStartStop).
// Coalescing the twin refresh of a compared region into runs, and copying
// runs on both cores, was measured slower on this machine (a dense 256 MiB
// region took 117 ms before and 155–176 ms after, interleaved runs of the
// old and new trees) and not kept. The adaptive thresholds stay at 60 % / 40 %: comparing a clean page
// costs about what a fault does (0.75 µs against 0.78 µs) and a changed
// page far less (the comparison stops at the first difference), so
// comparison wins above about half the extent written.
//
// ptrace block size. A fault costs 40–90 µs (two context switches, an
// injected mprotect); a block costs a twin copy per page taken at the
// fault and, for pages not written, a comparison at Stop. Dense writes
// (100 %) cost 54.8, 16.7, 6.1 and 3.9 µs per dirty page for blocks of 1,
// 4, 16 and 64 pages; sparse writes (1 %, 100 pages apart) 88, 85, 138 and
// 289 µs. 16 minimizes the geometric mean of the two (70, 38, 29, 34 µs)
// and is the default: 9× faster than one page on dense writes, 1.6×
// slower on sparse ones. A window that grows while faults are sequential
// (as readahead does) would get both ends, and is the next step if ptrace
// matters.
//
// eBPF twin capture, not built. DESIGN.md measured a tracepoint program
// (exceptions/page_fault_user) that copies each page into a ring buffer at
// its first write at +0.4–1.6 µs per page on top of the uffd fault, root
// or CAP_BPF only. It would save the persistent twin, a copy of the used
// part of the arena (the largest extent so far; reserved MAP_NORESERVE, so
// never more). It saves no time: the persistent twin costs one 4 KiB copy
// per dirty page at the next Start, and the eBPF path copies the page too
// (into the ring, then out of it), plus its own overhead, so a dirty page
// would cost 1.5–3× what uffd's fault costs now. And it saves memory only
// in sparse regions: a dense region puts a copy of every page it writes
// into the ring, as much as the twin. For a privileged-only mode, a new
// dependency (cilium/ebpf) and a kernel program to maintain, halving the
// memory of sparse regions does not pay; the twin stays.
package monitor
