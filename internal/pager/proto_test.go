package pager

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// FuzzParseAnswer checks the page answer's parser: no panic; an accepted
// answer starts with the page asked for, holds pages below the count, and
// calls back once per entry with a page's worth of bytes, the page asked
// for last (after the pages read ahead, in their order).
func FuzzParseAnswer(f *testing.F) {
	const ps = 64
	page := bytes.Repeat([]byte{7}, ps)
	f.Add(AppendPage(AppendPage(nil, 3, page), 4, page), 3, 16)
	f.Add(AppendPage(nil, 3, page), 2, 16)
	f.Add([]byte{1, 2, 3}, 0, 1)
	f.Fuzz(func(t *testing.T, b []byte, want, npages int) {
		if npages <= 0 || npages > 1<<20 {
			return
		}
		var got []int
		err := ParseAnswer(b, want, npages, ps, func(p int, content []byte) error {
			if len(content) != ps {
				t.Fatalf("entry of %d bytes", len(content))
			}
			got = append(got, p)
			return nil
		})
		if err != nil {
			if len(got) != 0 {
				t.Fatalf("error %v after %d callbacks", err, len(got))
			}
			return
		}
		if len(got) == 0 || len(got) > MaxPages || got[len(got)-1] != want || binary.LittleEndian.Uint64(b) != uint64(want) {
			t.Fatalf("accepted %v for a request of page %d", got, want)
		}
		for i, p := range got[:len(got)-1] {
			if binary.LittleEndian.Uint64(b[(i+1)*(8+ps):]) != uint64(p) {
				t.Fatalf("read-ahead pages %v not in the answer's order", got)
			}
		}
		for _, p := range got {
			if p < 0 || p >= npages {
				t.Fatalf("accepted page %d of %d", p, npages)
			}
		}
	})
}

func TestParseRequest(t *testing.T) {
	if p, err := ParseRequest(AppendRequest(nil, 41), 42); err != nil || p != 41 {
		t.Errorf("page 41 of 42: %d, %v", p, err)
	}
	for _, b := range [][]byte{AppendRequest(nil, 42), nil, {1, 2, 3}} {
		if _, err := ParseRequest(b, 42); err == nil {
			t.Errorf("%x accepted for 42 pages", b)
		}
	}
}

// TestClientIDs checks the ids under which helpers reach each node's page
// server: 1 to size-1, distinct per server, back to the rank, and the
// rank itself at node 0's (lazy transfer's numbering).
func TestClientIDs(t *testing.T) {
	const size = 5
	for holder := range size {
		seen := map[int]bool{}
		for rank := range size {
			if rank == holder {
				continue
			}
			id := ClientID(rank, holder, size)
			if id < 1 || id >= size || seen[id] || ClientRank(id, holder, size) != rank {
				t.Fatalf("rank %d at node %d's server: id %d (seen %v), back to %d", rank, holder, id, seen[id], ClientRank(id, holder, size))
			}
			seen[id] = true
			if holder == 0 && id != rank {
				t.Fatalf("rank %d at the master's server has id %d", rank, id)
			}
		}
	}
	if ServerJobID(7, 0) != JobID(7) || ServerJobID(7, 1) == ServerJobID(7, 2) {
		t.Fatal("server job ids: node 0's must be JobID, the others distinct")
	}
}

// FuzzReplicaMessages checks the parsers of the replication messages (a
// buddy's: a replicate message's run of pages and a replica request): no
// panic; an accepted run is whole pages, at most ReplPages, below the
// count; an accepted request names a node and a page in range, and
// encodes back to itself.
func FuzzReplicaMessages(f *testing.F) {
	const ps = 64
	page := bytes.Repeat([]byte{9}, ps)
	f.Add(append(AppendRunHeader(nil, 6), append(page, page...)...), 8, 3)
	f.Add(AppendReplicaRequest(nil, 2, 5), 8, 3)
	f.Add([]byte{1, 2, 3}, 1, 1)
	f.Fuzz(func(t *testing.T, b []byte, npages, size int) {
		if npages <= 0 || npages > 1<<20 || size <= 0 || size > 1<<16 {
			return
		}
		if first, content, err := ParseRun(b, npages, ps); err == nil {
			k := len(content) / ps
			if len(content)%ps != 0 || k == 0 || k > ReplPages(ps) || first < 0 || first+k > npages || len(content)+8 != len(b) {
				t.Fatalf("run of %d bytes from page %d of %d accepted from %d bytes", len(content), first, npages, len(b))
			}
		}
		origin, p, err := ParseReplicaRequest(b, size, npages)
		if err != nil {
			return
		}
		if origin < 0 || origin >= size || p < 0 || p >= npages || !bytes.Equal(AppendReplicaRequest(nil, origin, p), b) {
			t.Fatalf("request %x read as node %d page %d", b, origin, p)
		}
	})
}
