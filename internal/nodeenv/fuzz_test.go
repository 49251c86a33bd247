package nodeenv

import (
	"bytes"
	"fmt"
	"net"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// refExpand is a direct reference expansion of a host list in the form the
// structured fuzzer below builds: items of "prefix[ranges]suffix" with at
// most one bracket group, ranges of unpadded or padded decimal numbers.
func refExpand(items []refItem) []string {
	var out []string
	for _, it := range items {
		if it.ranges == nil {
			out = append(out, it.prefix+it.suffix)
			continue
		}
		for _, r := range it.ranges {
			for n := r.lo; n <= r.hi; n++ {
				s := strconv.Itoa(n)
				for len(s) < r.width {
					s = "0" + s
				}
				out = append(out, it.prefix+s+it.suffix)
			}
		}
	}
	return out
}

type refRange struct{ lo, hi, width int }

type refItem struct {
	prefix, suffix string
	ranges         []refRange // nil: no brackets
}

func (it refItem) String() string {
	if it.ranges == nil {
		return it.prefix + it.suffix
	}
	var rs []string
	for _, r := range it.ranges {
		lo := fmt.Sprintf("%0*d", r.width, r.lo)
		if r.lo == r.hi {
			rs = append(rs, lo)
		} else {
			rs = append(rs, lo+"-"+fmt.Sprintf("%0*d", r.width, r.hi))
		}
	}
	return it.prefix + "[" + strings.Join(rs, ",") + "]" + it.suffix
}

// FuzzExpandHostlistReference builds small host lists from the fuzzer's
// bytes and compares ExpandHostlist with refExpand.
func FuzzExpandHostlistReference(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{0, 9, 200, 3, 17, 0, 4, 4, 4, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		next := func() int {
			if len(b) == 0 {
				return 0
			}
			v := int(b[0])
			b = b[1:]
			return v
		}
		names := []string{"n", "node", "gpu", "rack-", "a.b", "x_"}
		suffixes := []string{"", ".ib", "-e", "z"}
		var items []refItem
		for k := 1 + next()%4; k > 0; k-- {
			it := refItem{prefix: names[next()%len(names)], suffix: suffixes[next()%len(suffixes)]}
			if it.suffix != "" && it.suffix[0] != '.' && it.suffix[0] != '-' {
				it.suffix = "" // "n1z" and "n[1]z" are different lists only by padding: keep it simple
			}
			if next()%3 != 0 {
				for m := 1 + next()%3; m > 0; m-- {
					lo := next() % 20
					r := refRange{lo: lo, hi: lo + next()%5, width: 1 + next()%3}
					if len(strconv.Itoa(r.lo)) > r.width {
						r.width = len(strconv.Itoa(r.lo))
					}
					it.ranges = append(it.ranges, r)
				}
			}
			items = append(items, it)
		}
		var parts []string
		for _, it := range items {
			parts = append(parts, it.String())
		}
		list := strings.Join(parts, ",")
		got, err := ExpandHostlist(list)
		if err != nil {
			t.Fatalf("ExpandHostlist(%q): %v", list, err)
		}
		if want := refExpand(items); !reflect.DeepEqual(got, want) {
			t.Fatalf("ExpandHostlist(%q) = %q, want %q", list, got, want)
		}
	})
}

// FuzzExpandHostlist checks that ExpandHostlist never panics on any input,
// stays within its bound, and returns plain host names: each one free of
// list syntax and expanding to itself.
func FuzzExpandHostlist(f *testing.F) {
	for _, s := range []string{"vm", "node[01-03,07],gpu5", "rack[1-2]-n[1-2]", "a,b[8-10].ib", "c[009-011]",
		" x , y ", "", "n[1-", "n]", "n[3-1]", "n[a-b]", "n[0-99999999]", "a]b[1]", "[0-1][0-1][0-1]", "n[+1-+2]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, list string) {
		hosts, err := ExpandHostlist(list)
		if err != nil {
			return
		}
		if len(hosts) == 0 || len(hosts) > maxHostlist {
			t.Fatalf("%q: %d hosts", list, len(hosts))
		}
		for _, h := range hosts {
			if h == "" || strings.ContainsAny(h, "[],") {
				t.Fatalf("%q: host %q", list, h)
			}
		}
		if len(hosts) > 64 {
			return
		}
		for _, h := range hosts {
			if strings.TrimSpace(h) != h {
				continue // items are trimmed: " a" is "a"
			}
			again, err := ExpandHostlist(h)
			if err != nil || len(again) != 1 || again[0] != h {
				t.Fatalf("%q gave host %q, which expands to %q, %v", list, h, again, err)
			}
		}
	})
}

// FuzzFromScheduler feeds arbitrary values to the scheduler variables and
// checks that an accepted configuration is consistent.
func FuzzFromScheduler(f *testing.F) {
	f.Add("slurm", "2", "3", "n[07-09]", "", "")
	f.Add("openmpi", "1", "2", "", "head:4000", "")
	f.Add("pmi", "0", "4", "", "", "7000")
	f.Add("slurm", "0", "1", "x", "[::1]:9", "65536")
	f.Fuzz(func(t *testing.T, sched, rank, size, nodelist, master, port string) {
		var kv []string
		switch sched {
		case "slurm":
			kv = []string{"SLURM_PROCID=" + rank, "SLURM_STEP_ID=0", "SLURM_JOB_ID=1", "SLURM_STEP_NUM_TASKS=" + size,
				"SLURM_STEP_NODELIST=" + nodelist}
		case "openmpi":
			kv = []string{"OMPI_COMM_WORLD_RANK=" + rank, "OMPI_COMM_WORLD_SIZE=" + size,
				"OMPI_MCA_orte_hnp_uri=" + nodelist}
		default:
			kv = []string{"PMI_RANK=" + rank, "PMI_SIZE=" + size}
		}
		if master != "" {
			kv = append(kv, Master+"="+master)
		}
		if port != "" {
			kv = append(kv, Port+"="+port)
		}
		for _, s := range kv {
			if strings.Count(s, "=") == 0 {
				return
			}
		}
		c, err := fromScheduler(env(kv...))
		if err != nil {
			return
		}
		if c.Rank < 0 || c.Rank >= c.Size {
			t.Fatalf("%q: rank %d of %d", kv, c.Rank, c.Size)
		}
		if c.Size == 1 {
			return
		}
		host, p, err := net.SplitHostPort(c.Master)
		if err != nil {
			t.Fatalf("%q: master address %q: %v", kv, c.Master, err)
		}
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			t.Fatalf("%q: master port %q", kv, p)
		}
		if c.Rank == 0 && host != "" && !isLoopback(host) {
			t.Fatalf("%q: rank 0 listens on %q, want every interface or loopback", kv, c.Master)
		}
		if c.Rank > 0 && host == "" {
			t.Fatalf("%q: a slave dials %q", kv, c.Master)
		}
	})
}

// FuzzReadLine checks that readLine returns the first line and consumes
// nothing after it (the rest of ssh's stdin is the node's lifeline).
func FuzzReadLine(f *testing.F) {
	f.Add([]byte("00112233445566778899aabbccddeeff\nrest"), 64)
	f.Add([]byte("no newline"), 4)
	f.Fuzz(func(t *testing.T, in []byte, limit int) {
		limit = 1 + int(uint(limit)%200)
		r := bytes.NewReader(in)
		line, err := readLine(r, limit)
		consumed := len(in) - r.Len()
		switch i := bytes.IndexByte(in, '\n'); {
		case i >= 0 && i < limit:
			if err != nil || !bytes.Equal(line, in[:i]) || consumed != i+1 {
				t.Fatalf("%q limit %d: line %q, %v, read %d bytes", in, limit, line, err, consumed)
			}
		case i < 0 && len(in) < limit:
			if err != nil || !bytes.Equal(line, in) {
				t.Fatalf("%q limit %d: line %q, %v", in, limit, line, err)
			}
		default:
			if err == nil || consumed != limit {
				t.Fatalf("%q limit %d: line %q, %v, read %d bytes", in, limit, line, err, consumed)
			}
		}
	})
}
