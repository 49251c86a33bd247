package allocs

import (
	"bytes"
	"testing"
)

// tableOf is a table holding allocations with the entries' places.
func tableOf(es []Entry) *Table {
	var t Table
	all := make([]*Allocation, len(es))
	for i, e := range es {
		all[i] = &Allocation{Off: e.Off, N: e.N, Size: e.N, Type: e.Type, Where: e.Where}
	}
	t.Replace(all)
	return &t
}

func TestEntries(t *testing.T) {
	tab := testTable()
	enc := tab.AppendEntries(nil)
	es, err := ParseEntries(enc, 0x300)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != len(tab.all) {
		t.Fatalf("%d entries, want %d", len(es), len(tab.all))
	}
	for i, e := range es {
		a := tab.all[i]
		if e.Off != a.Off || e.N != a.N || e.Type != a.Type || e.Where != a.Where {
			t.Errorf("entry %d: %+v, want %+v", i, e, a)
		}
	}
	if again := tableOf(es).AppendEntries(nil); !bytes.Equal(again, enc) {
		t.Fatalf("re-encoded %x, want %x", again, enc)
	}
	for name, b := range map[string][]byte{
		"short":    enc[:len(enc)-1],
		"trailing": append(bytes.Clone(enc), 0),
		"empty":    nil,
	} {
		if _, err := ParseEntries(b, 0x300); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := ParseEntries(enc, 0x100); err == nil {
		t.Errorf("accepted allocations past the extent")
	}
}

// FuzzEntries checks that ParseEntries refuses an encoding or returns
// allocations in order inside the extent that encode back to it.
func FuzzEntries(f *testing.F) {
	f.Add(testTable().AppendEntries(nil), 0x300)
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0}, 16)
	f.Fuzz(func(t *testing.T, b []byte, extent int) {
		if extent < 0 {
			return
		}
		es, err := ParseEntries(b, extent)
		if err != nil {
			return
		}
		for i, e := range es {
			if e.Off < 0 || e.Off >= extent || e.N <= 0 || i > 0 && e.Off <= es[i-1].Off {
				t.Fatalf("%x: entry %d %+v", b, i, e)
			}
		}
		if again := tableOf(es).AppendEntries(nil); !bytes.Equal(again, b) {
			t.Fatalf("%x parses to %+v, which encodes as %x", b, es, again)
		}
	})
}
