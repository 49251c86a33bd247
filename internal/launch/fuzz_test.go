package launch

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode"
)

// formatHosts renders hosts in the canonical MPICH form that ParseHostfile
// must read back unchanged: "name:N", with the name in brackets when it
// holds a colon (an IPv6 address).
func formatHosts(hosts []Host) string {
	var b strings.Builder
	for _, h := range hosts {
		if strings.Contains(h.Name, ":") {
			fmt.Fprintf(&b, "[%s]:%d\n", h.Name, h.Slots)
		} else {
			fmt.Fprintf(&b, "%s:%d\n", h.Name, h.Slots)
		}
	}
	return b.String()
}

// checkHosts asserts the invariants of a parsed host list.
func checkHosts(t *testing.T, in string, hosts []Host) {
	t.Helper()
	if len(hosts) == 0 {
		t.Fatalf("%q: no hosts and no error", in)
	}
	seen := map[string]bool{}
	for _, h := range hosts {
		if h.Name == "" || h.Slots < 1 || h.Slots > MaxSlots {
			t.Fatalf("%q: host %+v", in, h)
		}
		if strings.ContainsAny(h.Name, "#[]") || strings.IndexFunc(h.Name, unicode.IsSpace) >= 0 {
			t.Fatalf("%q: host name %q holds a separator", in, h.Name)
		}
		if seen[h.Name] {
			t.Fatalf("%q: host %q listed twice", in, h.Name)
		}
		seen[h.Name] = true
	}
	total := TotalSlots(hosts)
	if total < 1 || total > MaxSlots {
		t.Fatalf("%q: %d slots in all", in, total)
	}
	// Placement never fails and fills the first host first.
	p := Place(hosts, 3)
	if p[0] != "" || p[1] != hosts[0].Name {
		t.Fatalf("%q: Place = %q", in, p)
	}
}

// FuzzParseHostfile checks that ParseHostfile never panics, that what it
// accepts is a list of distinct named hosts with 1 ≤ slots, and that the
// list round-trips through the canonical rendering.
func FuzzParseHostfile(f *testing.F) {
	for _, s := range []string{
		"node1 slots=2 max_slots=4\nnode2:3\nnode3 # one\nnode1 slots=1\n\n[::1]:2\nuser@node4\n",
		"a slots=0", "a:b", ":3", "# only a comment", "[::1]", "fe80::1%eth0", "a slots=9223372036854775807\na slots=1",
		"h1 slots=2\nh2 slots=2\n", "x]:2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		hosts, err := ParseHostfile(strings.NewReader(in), "hosts")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "hosts") && !strings.HasPrefix(err.Error(), "read hosts") {
				t.Fatalf("%q: error %q does not name the file", in, err)
			}
			return
		}
		checkHosts(t, in, hosts)
		out := formatHosts(hosts)
		again, err := ParseHostfile(strings.NewReader(out), "again")
		if err != nil {
			t.Fatalf("%q parsed as %v, rendered as %q, which does not parse: %v", in, hosts, out, err)
		}
		if !reflect.DeepEqual(again, hosts) {
			t.Fatalf("%q parsed as %v, rendered as %q, parsed back as %v", in, hosts, out, again)
		}
	})
}

// FuzzParseHostList checks --hosts parsing against the hostfile parser: a
// comma-separated list is the same hosts as one per line.
func FuzzParseHostList(f *testing.F) {
	for _, s := range []string{"a,b:2,user@c", " , ", "[::1]:2,a", "a:0", "a:1,a:2", "-oProxyCommand=x", "a b", "[::1]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		hosts, err := ParseHostList(in)
		if err != nil {
			return
		}
		checkHosts(t, in, hosts)
		if strings.ContainsAny(in, "#\n\r") || strings.IndexFunc(in, unicode.IsSpace) >= 0 {
			return // a hostfile reads these differently
		}
		fromFile, err := ParseHostfile(strings.NewReader(strings.ReplaceAll(in, ",", "\n")), "hosts")
		if err != nil || !reflect.DeepEqual(fromFile, hosts) {
			t.Fatalf("--hosts %q gave %v, as a hostfile %v, %v", in, hosts, fromFile, err)
		}
	})
}
