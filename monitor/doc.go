// Package monitor owns one question of CAPE's checkpointer: which pages of
// the arena did this node write during a parallel region, and what did they
// hold when the region began (their twins)?
//
// In a nutshell, it works as follows. A Tracker watches one memory range,
// the whole arena mapping, of which a prefix (the extent) is in use. Start
// marks a region's entry: from then on every page below the extent has a
// twin, a copy of its content at entry (on a lazy tracker told
// TwinWritesOnly, every page the region may write). Stop marks the exit
// and returns the written pages; the caller diffs each against its twin
// to build a byte-exact delta. Twins are persistent: a backend that knows which pages
// changed since the last Start (uffd) refreshes only those, so no region
// pays a full copy; writes made between regions (sequential code, injected
// deltas) refresh the twins at the next Start and never appear in a Stop.
// A caller about to write the memory between regions may say so first
// (Injector), which makes those writes cheaper, never different. A caller
// may also pass what the program's translation proved about the next
// region (Hinter): the spans it can write, and that nothing wrote the
// memory since the last Stop; uffd's mixed regions then compare only the
// hot pages the region can write, and a Start after a clean stretch
// compares none whose twins are still current.
//
// # Backends
//
//   - uffd (Linux 6.7+, the default where it works): the arena is registered
//     with userfaultfd in asynchronous write-protect mode
//     (UFFD_FEATURE_WP_ASYNC|WP_UNPOPULATED, UFFD_USER_MODE_ONLY, so no
//     privilege is needed). The kernel unprotects a page at its first write
//     without any signal or handler thread; the PAGEMAP_SCAN ioctl on
//     /proc/self/pagemap lists the written pages and re-protects them in the
//     same walk. Exact; a written page costs a write fault and the refresh of
//     its twin at the next Start, a clean page a few nanoseconds per scan. A
//     write fault costs from under a microsecond to tens of microseconds
//     depending on the machine (a paravirtualized guest pays a trip through
//     the hypervisor), so each region is tracked the way the backend predicts
//     cheapest from its own measurements: the cost of a fault (one page probed
//     at Start, every few regions), of copying, comparing and write-protecting
//     a page (timed on the work it does), and the pages the last region wrote
//     and those written between regions. Besides write faults, a region can be
//     compared with the twins, the extent re-armed at Stop so that only
//     changed twins are refreshed (writes between regions still fault), or
//     plain. A compared region sees only the pages it changed, not those it
//     rewrote with their own bytes, so from time to time (backing off) one
//     write-protects a sample of 64 pages to count the pages it writes. A
//     plain region is mixed: the extent is cut in chunks of 16 pages, each hot
//     or cold. A hot chunk is unprotected: Start copies into the twins its
//     pages known written since the last Start (reported by the last Stop, or
//     announced by the caller, see Injector) and compares the others, copying
//     those that differ; Stop compares it. No fault, a comparison per page at
//     each end. A cold chunk stays write-protected: a scan tells its written
//     pages, a few nanoseconds a page, so it costs nothing until it is
//     written. A hot chunk in which nothing was written or changed for a while
//     (4 Starts at first) is probed: one page of it is write-protected; if
//     that page stays unwritten and nothing else changes for as long again,
//     the chunk is armed and turns cold. A cold chunk written (in a region or
//     between regions) or announced, and a probing chunk whose probe page is
//     written or whose other pages change, turn hot again, and wait longer (4
//     times longer after a probe, twice after a cold spell, up to 256 Starts)
//     before the next probe, so that chunks rewritten from time to time, or
//     with their own bytes (which comparisons do not see), cost one fault per
//     probe at most. Iterative programs leave most of their memory unwritten
//     in a given region (in a stencil, the rows the other nodes compute):
//     those chunks turn cold, and a region costs in proportion to the pages it
//     and the code between regions write, not to the extent. So does memory
//     a program stops writing (buffers it dropped or leaked): a hot chunk
//     that the region's writes do not meet (see Hinter) is compared at a
//     Start when its probe or its arming is due, so that it cools even when
//     no stretch between regions is proven clean. A Stop whose region's
//     writes are bounded scans only the bounds. A Start walks the extent
//     with PAGEMAP_SCAN (a nanosecond or two a page) to find the writes made
//     between regions, except, where the region's writes are bounded and
//     nobody reads Between (Watcher) on a node that is not lazy, the chunks
//     cold for 32 Starts outside the bounds: a page written there stays
//     unprotected, reading as written, until a Start whose region may write
//     it or one that walks the whole extent finds it. What a region's cost
//     keeps of the extent is then a few nanoseconds of bookkeeping a chunk
//     (and, on a watched tracker, the walk). Where the extent
//     is so small that a scan costs more than copying and comparing it, a
//     plain region is bare: nothing armed, Start copies the extent into the
//     twins, Stop compares it, the compare backend's work. On a lazy node
//     (twins in a memory file, absent pages) such a region makes no system
//     call once its pages have been seen populated and its twins held: a
//     page stays populated until Invalidate discards it, and a hole is
//     punched in the twin file only where held is cleared with it
//     (releaseTwins: Invalidate, which releases the twins of the pages it
//     discards, and a writes-only tracker's Stop; populatedSeen,
//     twinSpans). A lazy tracker told TwinWritesOnly (distributed homes,
//     whose nodes read the twins of the pages they wrote only) takes,
//     before a region whose writes are bounded, the twins of the chunks
//     the bounds meet only, and releases at Stop those it took for
//     chunks the region did not write (writesonly_linux.go). A caller that
//     writes the arena between regions (cape's injection of the merged delta)
//     announces the byte ranges first (Injector's WillWrite): their
//     write-protected pages are unprotected, with their chunks, so that the
//     injection takes no write fault, and the next Start copies them into the
//     twins without comparing them. Before a Start whose hint says the
//     stretch is clean, announcing is required, not only cheaper: such a
//     Start compares no hot page whose twin it knows current, so a write
//     there unannounced keeps a stale twin. A region whose hint bounds its writes
//     to a few pages (32 at most) is a snapshot region where that is
//     estimated cheaper than the kind it would otherwise be: Start copies
//     those pages into the twins, Stop compares them, and nothing is
//     walked, scanned or armed (RESULTS.md, "Empty regions"); it leaves
//     the other pages' tracking as the region before it left it, for the
//     next region of another kind to take up (snap_linux.go).
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
//     the signal; every other signal passes through. A fault costs two
//     context switches and an injected system call, so each one saves the
//     twins of and unprotects the whole aligned block of
//     Options.PtraceBlock pages around the faulting page (default 16); Stop reports the faulting pages and those of their
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
// The costs of each backend, the measurements behind the uffd backend's
// choice and the ptrace block size, are in RESULTS.md ("Monitors"), with
// the benchmark commands that produced them.
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
//		// per run of the delta, if t is a monitor.Injector: t.WillWrite(off, n)
//		... inject merged delta, run sequential code ...
//	}
//	t.Close()
//
// Trackers are not safe for concurrent use; the memory they watch may be
// written by any number of goroutines and threads between Start and Stop,
// and by nothing while Start or Stop runs. The slice Stop returns and the
// twins stay valid until the next Start. Close releases the descriptors and
// the twins; the tracked memory stays mapped and writable.
package monitor
