package cape

import (
	"encoding/binary"
	"testing"

	"github.com/cape-go/cape/cape/internal/setup"
	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/delta"
)

// FuzzOpen checks the runtime's reading of an exchange payload (the values
// envelope, then delta.Decode under the region's limits): no panic, and
// whatever it accepts can be applied to the region's extent of the arena,
// which is the only memory Exchange writes.
func FuzzOpen(f *testing.F) {
	const extent = 1 << 16
	r := &Region{n: &node{plan: setup.Plan{Compression: delta.None}}, extent: extent, seq: 3}
	d := &delta.Delta{}
	d.Reset(3, 1)
	delta.AppendFull(d, 4096, []byte("written by node 1"))
	delta.AppendFull(d, extent-8, []byte{1, 2, 3, 4, 5, 6, 7, 8})
	for _, vals := range [][]byte{nil, wire.Pack(func(value) []byte { return []byte{1, 2, 3} }, make([]value, 2))} {
		for _, c := range []delta.Compression{delta.None, delta.S2} {
			r.n.plan.Compression = c
			buf, err := r.envelope(d, vals)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(buf)
		}
	}
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, p []byte) {
		vals, d, err := wire.OpenEnvelope(p, r.limits())
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
