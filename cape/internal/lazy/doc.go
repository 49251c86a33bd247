// Package lazy owns lazy transfer (cape run --transfer lazy): the master's
// bookkeeping of which pages each slave lacks and fetched, the plan of
// write notices and pushes sent to each slave after a region, the page
// server with its snapshot of the pages slaves lack, and a slave's side —
// its pager helper, the pushes it installs and the pages it invalidates.
// It holds no pointer into the runtime, never exits and never prints:
// package cape drives it, sends and receives the job's messages, and
// reports what it returns.
//
// In a nutshell, it works as follows. After a region the master (the home
// of every page: it merges and injects every region's result) sends each
// slave write notices (the pages others changed) instead of every changed
// byte, plus, eagerly, the changed pages that slave fetched after the
// previous instance of the same region (Master.Exchange). A slave
// invalidates the noticed pages; its pager helper (internal/pager), a
// separate process holding the slave's userfaultfd, fetches a page from
// the master's page server on first access (Slave). The page server
// serves a page as of the last exchange from a snapshot the exchange takes
// of the pages slaves lack, since the master's arena changes afterwards
// (its sequential code, its share of the next region). A slave cannot
// lack a page past the next exchange's gather without asking for it then,
// since it sends its delta only after its share is done.
//
// # Lifecycle
//
// At set-up each slave tells the master whether its tracker is a
// monitor.Lazy (lazyHello); the master decides for the job and answers (lazyInfo);
// if on, the master creates its Master with a listener for the page
// server, which accepts the slaves' helpers in the background, and each
// slave starts its helper and waits for its connection (StartSlave).
// Master.Exchange and Slave.Open/Apply/Invalidate run once per region,
// from the region's goroutine; Close ends either side (Finalize).
//
// # Messages
//
// The message kinds are numbered in cape/internal/wire's table (lazyHello,
// lazyInfo, merged), which also encodes and validates the set-up messages'
// payloads; this package encodes and validates the lazy merged payload:
//
//	kind       from → to        payload
//	lazyHello  slave → master   u8: 1 if this slave can take lazy pages (its tracker is monitor.Lazy)
//	lazyInfo   master → slave   u8 on (1: lazy transfer for the whole job), u16 page server port (little-endian)
//	merged     master → slave   with lazy transfer on: a lazy merged payload (below) instead of an envelope
//
// Both set-up messages carry Seq 0 and are exchanged once, when the nodes
// join. A lazy merged payload is a u32 count of write notices, the notices
// (u32 page indices, strictly increasing: the pages the slave must
// invalidate), then an envelope (cape/internal/wire) whose delta
// holds the pushed bytes: runs on pages the slave holds, and whole pages
// that it lacked. All integers are little-endian. Page requests travel on
// the helper's own connection (internal/pager).
//
// # Locks
//
// A Master's mu protects its bookkeeping, shared by the page server's
// goroutines (one per slave) and the region's goroutine; Exchange holds it
// while it sends the region's results, so that a fetch of this region's
// pages waits for the snapshot. A Slave has no lock: it is used by the
// region's goroutine only.
package lazy
