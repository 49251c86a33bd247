package cape

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/cape-go/cape/delta"
)

// FuzzParseFault checks the CAPE_FAULT parser: no panic, and an accepted
// fault is complete, valid, and prints back to the same fault.
func FuzzParseFault(f *testing.F) {
	for _, s := range []string{"node=2,at=create,do=crash", "node=0,at=send,do=drop,region=3", "node=1", "at=init",
		"node=-1,at=init,do=exit", "node=1,at=init,do=stall,region=0", "node=1, at=init ,do=exit", "x=y", "node",
		"node=1,at=compute,do=pause,after=5ms,for=1s", "node=1,at=broadcast,do=crash,after=-1s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ft, err := parseFault(s)
		if err != nil {
			if !strings.Contains(err.Error(), FaultEnv) {
				t.Fatalf("%q: error %q does not name %s", s, err, FaultEnv)
			}
			return
		}
		if ft == nil {
			if s != "" {
				t.Fatalf("%q: no fault and no error", s)
			}
			return
		}
		if ft.node < 0 || !contains(faultPoints, ft.at) || !contains(faultActions, ft.do) {
			t.Fatalf("%q: accepted %+v", s, ft)
		}
		out := fmt.Sprintf("node=%d,at=%s,do=%s", ft.node, ft.at, ft.do)
		if ft.region != 0 {
			out += fmt.Sprintf(",region=%d", ft.region)
		}
		out += fmt.Sprintf(",after=%v,for=%v", ft.after, ft.pause)
		again, err := parseFault(out)
		if err != nil || *again != *ft {
			t.Fatalf("%q gave %+v, printed %q, parsed back as %+v, %v", s, ft, out, again, err)
		}
	})
}

// FuzzOpen checks the runtime's reading of an exchange payload (the values
// envelope, then delta.Decode under the region's limits): no panic, and
// whatever it accepts can be applied to the region's extent of the arena,
// which is the only memory Exchange writes.
func FuzzOpen(f *testing.F) {
	const extent = 1 << 16
	r := &Region{n: &node{comp: delta.None}, extent: extent, seq: 3}
	d := &delta.Delta{}
	d.Reset(3, 1)
	delta.AppendFull(d, 4096, []byte("written by node 1"))
	delta.AppendFull(d, extent-8, []byte{1, 2, 3, 4, 5, 6, 7, 8})
	for _, vals := range [][]byte{nil, pack(func(value) []byte { return []byte{1, 2, 3} }, make([]value, 2))} {
		for _, c := range []delta.Compression{delta.None, delta.S2} {
			r.n.comp = c
			buf, err := r.envelope(d, vals)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(buf)
		}
	}
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, p []byte) {
		vals, d, err := r.open(p)
		if err != nil {
			return
		}
		if len(p) < 4 || len(vals) != int(binary.LittleEndian.Uint32(p)) {
			t.Fatalf("values of %d bytes from a payload of %d", len(vals), len(p))
		}
		mem := make([]byte, extent)
		if err := d.Apply(mem); err != nil {
			t.Fatalf("accepted a delta that does not apply to the extent: %v", err)
		}
		if d.Len() > extent {
			t.Fatalf("accepted %d bytes of runs for an extent of %d", d.Len(), extent)
		}
	})
}

// FuzzUnpack checks the values list codec: unpack never panics, and what
// it accepts is exactly n pieces that pack back to the input.
func FuzzUnpack(f *testing.F) {
	f.Add([]byte{3, 0, 0, 0, 1, 2, 3, 0, 0, 0, 0}, 2)
	f.Add([]byte{255, 255, 255, 255}, 1)
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		n = int(uint(n) % 8)
		pieces, err := unpack(b, n)
		if err != nil {
			return
		}
		if len(pieces) != n {
			t.Fatalf("%d pieces, want %d", len(pieces), n)
		}
		var out []byte
		for _, p := range pieces {
			out = binary.LittleEndian.AppendUint32(out, uint32(len(p)))
			out = append(out, p...)
		}
		if string(out) != string(b) {
			t.Fatalf("unpack(%x) = %x, packs back to %x", b, pieces, out)
		}
	})
}
