package cape

// Loss recovery under distributed homes (docs/homes.md, "Loss recovery"):
// before its notice, each slave has its pager helper send the pages it
// wrote to its buddy (the next live slave), whose helper keeps them; a
// fetch from a lost node's page server falls back to its buddy; and the
// master adopts a lost node's pages at the end of the region in which it
// learns of the loss, so that after that release no page depends on a
// replica. The master is replicated nowhere: its loss ends the job.
//
// Where every node runs on one host (self replicas), a node's loss is its
// process's: each slave's buddy is itself, its helper keeps the replica,
// and, a process of its own, serves the node's pages from it once the node
// is gone (package pager, orphan_linux.go). Nothing is copied to another
// node.

import (
	"fmt"
	"net"
	"slices"
	"time"

	"github.com/cape-go/cape/cape/internal/homes"
)

// buddyOf returns the rank of the node keeping rank's replica in the live
// set live (ascending, the master first): the next live slave, or the
// master where rank is the only one; -1 for the master or a node not live.
func buddyOf(live []int, rank int) int {
	i, ok := slices.BinarySearch(live, rank)
	if rank == 0 || !ok || live[0] != 0 {
		return -1
	}
	if len(live) == 2 {
		return 0
	}
	if i++; i == len(live) {
		i = 1
	}
	return live[i]
}

// setReplicas tells the node's helper where each live slave's replica is
// kept, and the node its own buddy. A lost node's replica stays where it
// was: the fetches of its pages go there until the master adopts them.
//
// A node that left the live set had its pages taken over by the master
// before the release that says so (adoptLost runs in the exchange that
// declares the loss, or, for a loss found while releases were sent, in the
// next one, which the live set leaves it out of): the replica of its pages
// kept here, if any, is dropped then.
func (n *node) setReplicas() error {
	hs := n.homes
	if !hs.replicate {
		return nil
	}
	live := n.members.Live
	for _, rank := range live {
		hs.h.SetReplica(rank, hs.replicaAt(live, rank))
	}
	hs.buddy = hs.replicaAt(live, n.rank)
	for _, rank := range hs.live {
		if _, ok := slices.BinarySearch(live, rank); !ok {
			if err := hs.h.DropReplica(rank); err != nil {
				return fmt.Errorf("distributed homes: %w", err)
			}
		}
	}
	hs.live = append(hs.live[:0], live...)
	return nil
}

// replicaAt returns the rank of the node keeping rank's replica in the
// live set live: its buddy, or, with self replicas, the slave itself; -1
// for the master or a node not live.
func (hs *homesNode) replicaAt(live []int, rank int) int {
	if hs.self {
		if _, ok := slices.BinarySearch(live, rank); !ok || rank == 0 {
			return -1
		}
		return rank
	}
	return buddyOf(live, rank)
}

// oneHost reports whether every address of hosts (host:port) is one of
// this machine's: a loopback address, or one of its interfaces'. The
// master's test of self replicas: every slave reached it from this host.
func oneHost(hosts []string) bool {
	var local []net.Addr
	for _, hp := range hosts {
		host, _, err := net.SplitHostPort(hp)
		ip := net.ParseIP(host)
		if err != nil || ip == nil {
			return false
		}
		if ip.IsLoopback() {
			continue
		}
		if local == nil {
			if local, err = net.InterfaceAddrs(); err != nil {
				return false
			}
		}
		if !slices.ContainsFunc(local, func(a net.Addr) bool {
			in, ok := a.(*net.IPNet)
			return ok && in.IP.Equal(ip)
		}) {
			return false
		}
	}
	return true
}

// replicateWritten sends the node's buddy the pages it wrote in the region
// and waits until the buddy has them (a slave, where losses may be
// survived): the notice, hence the release, leaves only after. A new
// buddy first gets every page the node holds. It returns the bytes of the
// pages written it sent (those of a new buddy's first copy not counted).
// With self replicas it keeps them in the node's own replica instead
// (keepWritten).
func (r *Region) replicateWritten() (int, error) {
	n := r.n
	hs := n.homes
	if hs.self {
		r.keepWritten()
		return 0, nil
	}
	full := hs.buddy != hs.replicatedTo
	if !hs.replicate || hs.buddy < 0 || len(hs.written) == 0 && !full {
		return 0, nil
	}
	t := time.Now()
	pend, arena, ps := hs.h.Pending(), n.arena.Bytes(), hs.ps
	hs.ranges = hs.ranges[:0]
	pages := hs.unshared(func(lo, hi int) {
		copy(pend[lo*ps:hi*ps], arena[lo*ps:hi*ps])
		hs.ranges = append(hs.ranges, [2]int{lo, hi})
	})
	if len(hs.ranges) == 0 && !full {
		return 0, nil
	}
	to, err := hs.h.Replicate(r.seq, hs.buddy, full, hs.ranges)
	if err != nil {
		return 0, r.wrap("distributed homes", err)
	}
	hs.replicatedTo = to
	if st := r.stats; st != nil {
		st.replPages, st.replTo, st.replicate = pages, to, time.Since(t)
	}
	return pages * ps, nil
}

// keepWritten stores the pages a slave wrote in the region in its own
// replica, which its helper reads (self replicas): no command, and no
// first copy of the pages it held before (a slave holds only pages it
// wrote since the first region).
func (r *Region) keepWritten() {
	hs := r.n.homes
	if hs.buddy < 0 {
		return // the master: replicated nowhere
	}
	t := time.Now()
	arena := r.n.arena.Bytes()
	pages := hs.unshared(func(lo, hi int) {
		hs.h.KeepOwn(r.seq, lo, hi, arena)
		hs.tr.Kept(lo, hi) // their twins from the next Start on
	})
	if st := r.stats; st != nil && pages > 0 {
		st.replPages, st.replSelf, st.replicate = pages, true, time.Since(t)
	}
}

// unshared calls fn for each run [lo, hi) of the pages the node wrote in
// the region but those whose runs its notice carries (shared: the master
// holds them and builds them, so they need no replica), and returns how
// many pages the runs hold.
func (hs *homesNode) unshared(fn func(lo, hi int)) int {
	pages := 0
	for _, w := range hs.written {
		for lo := w.Lo; lo < w.Hi; {
			hi := lo
			for hi < w.Hi && !sharedPage(hs.shared, hi) {
				hi++
			}
			if hi > lo {
				fn(lo, hi)
				pages += hi - lo
			}
			lo = hi + 1
		}
	}
	return pages
}

// adoptLost makes the master the holder of the pages that nodes lost so
// far held and no node wrote in this region: it faults in those it lacks
// (its helper fetches them from the lost node's buddy, the node's server
// being gone) and adds them to the release's homes as its own.
func (r *Region) adoptLost() error {
	n := r.n
	hs := n.homes
	n.lossMu.Lock()
	var lost []int
	for _, l := range n.members.Losses {
		if !hs.adopted[l.Rank] {
			lost = append(lost, l.Rank)
		}
	}
	n.lossMu.Unlock()
	if len(lost) == 0 {
		return nil
	}
	ps := hs.ps
	var adopt []int
	for p := range r.extent / ps {
		if hs.h.Held(p) || !slices.Contains(lost, hs.h.Holder(p)) {
			continue
		}
		if _, ok := homes.Find(hs.homes, p); !ok {
			adopt = append(adopt, p)
		}
	}
	for _, p := range adopt {
		hs.faultIn(n.arena.Bytes(), p) // the helper installs it, or ends the node naming the page
	}
	hs.homes = homes.AddHeld(hs.homes, homes.AppendPageRanges(nil, adopt), 0)
	for _, rank := range lost {
		hs.adopted[rank] = true
	}
	if len(adopt) > 0 {
		notice("cape: master: %s: took over the %d pages lost node(s) %v held, from their replicas\n", r.label(), len(adopt), lost)
	}
	return nil
}

// sharedPage reports whether page p is in shared (ascending).
func sharedPage(shared []int, p int) bool {
	_, ok := slices.BinarySearch(shared, p)
	return ok
}

// faultIn makes page p of arena present if this node lacks it: it loads a
// byte of it, as the present calls do (presentMem.touch), and the node's
// helper fetches it from its holder, or from the holder's replica.
func (hs *homesNode) faultIn(arena []byte, p int) {
	if hs.h.Invalid(p) {
		m := presentMem{mem: arena, ps: uintptr(hs.ps)}
		m.touch(sliceAddr(arena)+uintptr(p*hs.ps), 1)
	}
}
