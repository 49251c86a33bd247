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
const (
	KindPageReq uint8 = 16 + iota
	KindPages
	KindPageErr
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

// AppendPage appends one entry of an answer: page p and its content.
func AppendPage(dst []byte, p int, content []byte) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, uint64(p))
	return append(dst, content...)
}

// ParseAnswer splits an answer to a request for page want, in an arena of
// npages pages of pageSize bytes, calling fn for each entry in order; the
// content aliases b. It checks the whole answer before the first call.
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
	for i := 0; i < len(b); i += entry {
		if err := fn(int(binary.LittleEndian.Uint64(b[i:])), b[i+8:i+entry]); err != nil {
			return err
		}
	}
	return nil
}
