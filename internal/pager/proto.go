package pager

import (
	"encoding/binary"
	"fmt"
)

// The page protocol, over the helper's own transport connection to the
// master's page server. Every message carries, in transport.Message.Seq,
// the version the slave is at: the sequence number of the last region whose
// exchange it completed. The master answers only requests of its current
// version.
//
//	kind      from → to        payload
//	pageReq   helper → master  u64 page index (little-endian)
//	pages     master → helper  1 to MaxPages entries: u64 page index, then the page's bytes;
//	                           the first entry is the page requested, the others are read ahead
//	pageErr   master → helper  the reason, text: the request is refused
//
// Distributed homes add replication to a buddy (docs/homes.md, "Loss
// recovery"): a node's helper sends its buddy's server the pages the node
// wrote in a region before the node's notice, and the buddy's server keeps
// them, two versions a page, to serve them once the node is lost.
//
//	replicate  helper → buddy   Seq: the pages' version; u64 the first page's index, then the bytes of 1 to
//	                            ReplPages(page size) consecutive pages
//	replEnd    helper → buddy   Seq: the version replicated; no payload; answered by replAck (Seq the same)
//	replicaReq helper → buddy   Seq: the version asked as of; u64 the lost node's rank, u64 page index;
//	                            answered as a pageReq is, from the lost node's replica
const (
	KindPageReq uint8 = 16 + iota
	KindPages
	KindPageErr
	KindReplicate
	KindReplEnd
	KindReplAck
	KindReplicaReq
)

// MaxPages is the most pages one answer carries.
const MaxPages = 32

// JobID is the job id of the page connections of job job: a helper cannot
// join the job's main star, nor a node the page server.
func JobID(job uint64) uint64 { return job ^ 0x7061676573 } // "pages"

// ServerJobID is the job id of the connections to node holder's page
// server (distributed homes, where every node serves the pages it holds):
// a helper cannot reach one server with another's connection. Node 0's is
// JobID.
func ServerJobID(job uint64, holder int) uint64 { return JobID(job) ^ uint64(holder)<<40 }

// ClientID is the id under which node rank's helper connects to node
// holder's page server, in a job of size nodes: 1 to size-1 (a server's
// own node never fetches from it), rank itself at node 0's.
func ClientID(rank, holder, size int) int { return (rank - holder + size) % size }

// ClientRank is the rank of the helper connected to node holder's page
// server under id.
func ClientRank(id, holder, size int) int { return (id + holder) % size }

// AppendRequest appends the payload of a request for page p.
func AppendRequest(dst []byte, p int) []byte {
	return binary.LittleEndian.AppendUint64(dst, uint64(p))
}

// ParseRequest reads a request's payload for an arena of npages pages.
func ParseRequest(b []byte, npages int) (int, error) {
	if len(b) != 8 {
		return 0, fmt.Errorf("page request of %d bytes, want 8", len(b))
	}
	p := binary.LittleEndian.Uint64(b)
	if p >= uint64(npages) {
		return 0, fmt.Errorf("page request for page %d of a %d-page arena", p, npages)
	}
	return int(p), nil
}

// AppendReplicaRequest appends the payload of a request for page p of the
// replica of node origin's pages.
func AppendReplicaRequest(dst []byte, origin, p int) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, uint64(origin))
	return binary.LittleEndian.AppendUint64(dst, uint64(p))
}

// ParseReplicaRequest reads a replica request's payload for a job of size
// nodes and an arena of npages pages.
func ParseReplicaRequest(b []byte, size, npages int) (origin, p int, err error) {
	if len(b) != 16 {
		return 0, 0, fmt.Errorf("replica request of %d bytes, want 16", len(b))
	}
	o, q := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
	if o >= uint64(size) || q >= uint64(npages) {
		return 0, 0, fmt.Errorf("replica request for page %d of node %d: a %d-page arena, %d nodes", q, o, npages, size)
	}
	return int(o), int(q), nil
}

// ReplFrame bounds a replicate message's payload, and MaxFrame of the
// connections between helpers and servers.
const ReplFrame = 1 << 20

// ReplPages is the most pages one replicate message carries, for pages of
// pageSize bytes.
func ReplPages(pageSize int) int { return max(1, (ReplFrame-8)/pageSize) }

// AppendRunHeader appends the header of a replicate message whose pages
// start at page first; the pages' bytes follow it.
func AppendRunHeader(dst []byte, first int) []byte {
	return binary.LittleEndian.AppendUint64(dst, uint64(first))
}

// ParseRun reads a replicate message's payload, for an arena of npages
// pages of pageSize bytes: the first page and the pages' bytes (aliasing
// b).
func ParseRun(b []byte, npages, pageSize int) (first int, content []byte, err error) {
	if len(b) < 8+pageSize || (len(b)-8)%pageSize != 0 || (len(b)-8)/pageSize > ReplPages(pageSize) {
		return 0, nil, fmt.Errorf("replicated pages of %d bytes: want 8 and 1 to %d pages of %d bytes", len(b), ReplPages(pageSize), pageSize)
	}
	f, k := binary.LittleEndian.Uint64(b), uint64((len(b)-8)/pageSize)
	if f >= uint64(npages) || k > uint64(npages)-f {
		return 0, nil, fmt.Errorf("replicated pages [%d, +%d) of a %d-page arena", f, k, npages)
	}
	return int(f), b[8:], nil
}

// AppendPage appends one entry of an answer: page p and its content.
func AppendPage(dst []byte, p int, content []byte) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, uint64(p))
	return append(dst, content...)
}

// ParseAnswer splits an answer to a request for page want, in an arena of
// npages pages of pageSize bytes, calling fn for each entry: the pages read
// ahead first, in order, and the page requested last; the content aliases
// b. It checks the whole answer before the first call.
//
// The requested page comes last because a thread waiting for it resumes as
// soon as it is mapped: it may then finish its region and take the next
// release, which invalidates pages, before a page read ahead and installed
// after it would be mapped: that page would hold a version the node no
// longer has. Installed first, every page read ahead is in place while the
// node still waits.
func ParseAnswer(b []byte, want, npages, pageSize int, fn func(p int, content []byte) error) error {
	entry := 8 + pageSize
	if len(b) == 0 || len(b)%entry != 0 || len(b)/entry > MaxPages {
		return fmt.Errorf("answer of %d bytes: want 1 to %d entries of %d bytes", len(b), MaxPages, entry)
	}
	for i := 0; i < len(b); i += entry {
		p := binary.LittleEndian.Uint64(b[i:])
		switch {
		case p >= uint64(npages):
			return fmt.Errorf("answer holds page %d of a %d-page arena", p, npages)
		case i == 0 && p != uint64(want):
			return fmt.Errorf("answer starts with page %d, not the page %d requested", p, want)
		}
	}
	for i := entry; i < len(b); i += entry {
		if err := fn(int(binary.LittleEndian.Uint64(b[i:])), b[i+8:i+entry]); err != nil {
			return err
		}
	}
	return fn(want, b[8:entry])
}
