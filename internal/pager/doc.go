// Package pager resolves the faults of a node's invalidated arena pages
// (lazy page transfer, package cape's --transfer lazy) in a helper process,
// and holds the wire format of the page requests that the helper sends to
// the master's page server.
//
// In a nutshell, it works as follows. A slave whose pages may be
// invalidated calls [Start] with its tracker's userfaultfd and twin file
// (monitor.Lazy). Start re-executes the node's own binary as the helper
// (the environment variable HelperEnv makes this package's init run the
// helper instead of the program), hands it the descriptors and, over a
// socket, the job's token; the helper dials the master's page server with
// the transport package (its own authenticated connection: a job id derived
// from the job's, the slave's rank) and answers when it is connected. Start
// does not wait for that answer; [Helper.Ready] does, and the node calls it
// at set-up, before its first region (the master's page server waits for
// every helper, so a node must not be lost with its helper unconnected; no
// fault reaches the helper before the node's first invalidation anyway).
//
// The helper never needs the node's Go scheduler: a thread of the node
// that touches a missing page blocks in the kernel until the helper, a
// separate process, installs the page with UFFDIO_COPY. So a node whose
// every thread is blocked in a fault, or stopped for a garbage collection,
// still gets its pages.
//
// The node and the helper share a small memory file (the state): the
// version (the sequence number of the last region whose exchange the node
// completed; the master serves pages as of that exchange), the bytes the
// helper received (the node's --stats count them with its exchange), and a
// bitmap of the invalidated pages. The node sets a page's bit before it invalidates
// the page and clears it when it installs a pushed page itself; the helper
// clears it just before it installs the fetched page. A fault on a page whose bit
// is clear is a first touch of memory never populated, which reads as zero:
// the helper installs zero pages without asking anyone.
//
// A helper installs a fetched page write-protected (the node's write
// tracking then sees a later write as it sees any other), after writing its
// twin and clearing its bit, and wakes the faulting threads last. The order
// matters because a waiting thread may go on before the wake: a signal ends
// its wait and it retries the access, finding the page mapped. Read-ahead
// pages have no waiter at all. Once a page is mapped, the node's tracker
// trusts its twin and its bit. A fetch that fails (the master is gone, or answers
// with an error) is never resolved with other data: the helper reports the
// error on stderr, naming the node and the master, and kills the node.
//
// Under distributed homes (Config.Serve) the helper also serves the pages
// its node holds to the other nodes' helpers, from a snapshot file the node
// writes at each release (Snapshot, BeginUpdate, SetHeld, SetVersion), and
// fetches each page from the node the state names as its holder. Serving
// lives here, not in the node, for the reason faults do: a node whose
// threads wait in faults, or are stopped for a garbage collection, must
// still serve, or two nodes fetching from each other would wait for ever.
// Its version word is then a seqlock: BeginUpdate marks it while the node
// rewrites the snapshot, and the server copies a page only under an
// unchanged version.
//
// Lifecycle: Start → Ready (at the node's set-up) → (SetVersion,
// MarkInvalid, ClearInvalid)* → Close; serving: Start → Port → Connect →
// (BeginUpdate, SetHeld, SetVersion, …)* → Close.
// Close ends the helper; the node's exit ends it too (it ends when its
// socket to the node closes).
package pager
