package launch

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
)

// MaxSlots bounds the slots of one host and of a whole host list: far more
// nodes than a job can run, small enough that sums cannot overflow.
const MaxSlots = 1 << 20

// Host is a machine that runs slaves, with the number of nodes it takes per
// round of placement.
type Host struct {
	Name  string // as given: an ssh destination ([user@]host or a ~/.ssh/config alias)
	Slots int    // ≥ 1
}

// ParseHostfile reads a hostfile in Open MPI format (`host slots=N`, other
// `key=value` fields are ignored) or MPICH format (`host:N`), one host per
// line; `#` starts a comment, blank lines are skipped and a host without a
// count has one slot. A host named twice has the sum of its slots. name is
// used in errors.
func ParseHostfile(r io.Reader, name string) ([]Host, error) {
	var hosts []Host
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		h, err := parseHostSpec(fields[0])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		for _, f := range fields[1:] {
			k, v, ok := strings.Cut(f, "=")
			if !ok || (k != "slots" && k != "max_slots" && k != "max-slots") {
				continue
			}
			if k == "slots" {
				n, err := strconv.Atoi(v)
				if err != nil || n < 1 || n > MaxSlots {
					return nil, fmt.Errorf("%s:%d: %q: want slots=N with 1 ≤ N ≤ %d", name, line, f, MaxSlots)
				}
				h.Slots = n
			}
		}
		if hosts, err = addHost(hosts, h); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(hosts) == 0 {
		return nil, fmt.Errorf("%s: no hosts", name)
	}
	return hosts, nil
}

// ParseHostList parses a comma-separated list of hosts, each optionally
// followed by `:N` slots (MPICH style): "a,b:2,user@c".
func ParseHostList(list string) ([]Host, error) {
	var hosts []Host
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		h, err := parseHostSpec(s)
		if err != nil {
			return nil, fmt.Errorf("--hosts: %w", err)
		}
		if hosts, err = addHost(hosts, h); err != nil {
			return nil, fmt.Errorf("--hosts: %w", err)
		}
	}
	if len(hosts) == 0 {
		return nil, fmt.Errorf("--hosts %q: no hosts", list)
	}
	return hosts, nil
}

// parseHostSpec parses "host" or "host:N". An IPv6 address must be written
// in brackets to carry a count: "[::1]:2" ("[::1]" alone is one slot). A
// name holding list syntax ("[]#,", blanks) or starting with '-' is refused.
func parseHostSpec(s string) (Host, error) {
	name, slots := s, 1
	if i := strings.LastIndexByte(s, ':'); i >= 0 && (strings.Count(s, ":") == 1 || strings.HasSuffix(s[:i], "]")) {
		n, err := strconv.Atoi(s[i+1:])
		if err != nil || n < 1 || n > MaxSlots {
			return Host{}, fmt.Errorf("%q: want host or host:N with 1 ≤ N ≤ %d", s, MaxSlots)
		}
		name, slots = s[:i], n
	}
	if len(name) >= 2 && name[0] == '[' && name[len(name)-1] == ']' {
		name = name[1 : len(name)-1]
	}
	switch {
	case name == "":
		return Host{}, fmt.Errorf("%q: empty host name", s)
	case strings.ContainsAny(name, "[]#,") || strings.IndexFunc(name, unicode.IsSpace) >= 0 || name[0] == '-':
		return Host{}, fmt.Errorf("%q: %q is not a host name", s, name)
	}
	return Host{Name: name, Slots: slots}, nil
}

func addHost(hosts []Host, h Host) ([]Host, error) {
	total := h.Slots
	for i := range hosts {
		total += hosts[i].Slots
	}
	if total > MaxSlots {
		return nil, fmt.Errorf("more than %d slots in all", MaxSlots)
	}
	for i := range hosts {
		if hosts[i].Name == h.Name {
			hosts[i].Slots += h.Slots
			return hosts, nil
		}
	}
	return append(hosts, h), nil
}

// TotalSlots is the number of slots of hosts.
func TotalSlots(hosts []Host) int {
	n := 0
	for _, h := range hosts {
		n += h.Slots
	}
	return n
}

// Place assigns the slaves (ranks 1 .. nodes-1) to hosts: the first host's
// slots are filled first, then the next host's; when every slot is taken,
// placement starts over at the first host (the hosts are oversubscribed).
// The result is indexed by rank; index 0, the master, is "" (here).
func Place(hosts []Host, nodes int) []string {
	out := make([]string, nodes)
	total := TotalSlots(hosts)
	for rank := 1; rank < nodes; rank++ {
		k := (rank - 1) % total
		for _, h := range hosts {
			if k < h.Slots {
				out[rank] = h.Name
				break
			}
			k -= h.Slots
		}
	}
	return out
}
