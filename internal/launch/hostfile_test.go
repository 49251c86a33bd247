package launch

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

func TestParseHostfile(t *testing.T) {
	in := `# Open MPI and MPICH lines may be mixed
node1 slots=2 max_slots=4
node2:3
node3   # one slot
node1 slots=1

[::1]:2
user@node4
`
	hosts, err := ParseHostfile(strings.NewReader(in), "hosts")
	if err != nil {
		t.Fatal(err)
	}
	want := []Host{{"node1", 3}, {"node2", 3}, {"node3", 1}, {"::1", 2}, {"user@node4", 1}}
	if !reflect.DeepEqual(hosts, want) {
		t.Fatalf("got %v, want %v", hosts, want)
	}
	for _, bad := range []string{"a slots=0", "a slots=x", "a:0", "a:b", ":3", "# only a comment"} {
		if _, err := ParseHostfile(strings.NewReader(bad), "hosts"); err == nil {
			t.Errorf("%q: no error", bad)
		} else if !strings.HasPrefix(err.Error(), "hosts") {
			t.Errorf("%q: error %q does not name the file", bad, err)
		}
	}
}

func TestParseHostListAndPlace(t *testing.T) {
	hosts, err := ParseHostList("a:2, b ,c")
	if err != nil {
		t.Fatal(err)
	}
	got := Place(hosts, 8)
	want := []string{"", "a", "a", "b", "c", "a", "a", "b"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Place = %q, want %q", got, want)
	}
	if _, err := ParseHostList(" , "); err == nil {
		t.Error("empty list accepted")
	}
}

func TestShellQuoteRoundTrip(t *testing.T) {
	for _, s := range []string{"", "plain", "a b", "it's", `$HOME "x" \n`, "CAPE_RANK=1", "-n"} {
		out, err := exec.Command("/bin/sh", "-c", "printf %s "+shellQuote(s)).Output()
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != s {
			t.Errorf("shellQuote(%q) gave %q back", s, out)
		}
	}
}
