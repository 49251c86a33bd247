package hints

import (
	"reflect"
	"testing"

	"github.com/cape-go/cape/monitor"
)

func TestWritesIn(t *testing.T) {
	const base, top = 0x10000, 0x20000
	type r struct{ lo, hi uintptr }
	tests := []struct {
		name   string
		ranges []r
		want   []monitor.Span
	}{
		{name: "none", ranges: nil, want: nil},
		{name: "inside", ranges: []r{{0x10100, 0x10200}}, want: []monitor.Span{{Off: 0x100, Len: 0x100}}},
		{name: "the whole arena", ranges: []r{{base, top}}, want: []monitor.Span{{Off: 0, Len: 0x10000}}},
		{name: "straddles the start", ranges: []r{{0xff00, 0x10010}}, want: []monitor.Span{{Off: 0, Len: 0x10}}},
		{name: "straddles the end", ranges: []r{{0x1fff0, 0x20100}}, want: []monitor.Span{{Off: 0xfff0, Len: 0x10}}},
		{name: "below", ranges: []r{{0x100, 0x200}}, want: nil},
		{name: "ends at the start", ranges: []r{{0xff00, base}}, want: nil},
		{name: "above", ranges: []r{{top, top + 8}}, want: nil},
		{name: "empty", ranges: []r{{0x10100, 0x10100}}, want: nil},
		{name: "three, one outside", ranges: []r{{0x10000, 0x10008}, {0x30000, 0x30008}, {0x18000, 0x18010}, {0x10008, 0x10010}},
			want: []monitor.Span{{Off: 0, Len: 8}, {Off: 0x8000, Len: 0x10}, {Off: 8, Len: 8}}},
	}
	for _, tt := range tests {
		var p Proof
		p.Bound()
		for _, x := range tt.ranges {
			p.WritesIn(x.lo, x.hi, base, top)
		}
		h := p.Hint(&Gap{}, 1, false)
		if !reflect.DeepEqual(h.Writes, tt.want) || !h.Bounded || p.Spans() != len(tt.want) {
			t.Errorf("%s: hint %+v (%d spans), want bounded, writes %v", tt.name, h, p.Spans(), tt.want)
		}
	}
}

// A region's first two spans take no allocation (the Proof is a field of
// its Region, allocated once).
func TestWritesInAllocatesNothing(t *testing.T) {
	p := new(Proof)
	allocs := testing.AllocsPerRun(100, func() {
		*p = Proof{}
		p.Bound()
		p.WritesIn(0x10100, 0x10200, 0x10000, 0x20000)
		p.WritesIn(0x10300, 0x10400, 0x10000, 0x20000)
		if p.Spans() != 2 {
			t.Fatal("spans lost")
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per region, want 0", allocs)
	}
}

// TestClean runs scripts of regions and the runtime's writes between them,
// and checks what each Start is told of the stretch before it.
func TestClean(t *testing.T) {
	l1, l2 := new(Loop), new(Loop)
	// Each step: a region numbered seq of loop (nil: no InLoop), started
	// after the runtime dirtied the gap or not, with --verify or not, and
	// whether its Start is told the stretch was clean. nested regions take
	// a number but do not end a stretch.
	type step struct {
		seq    uint64
		loop   *Loop
		dirty  bool
		verify bool
		nested bool
		clean  bool
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"a loop's regions", []step{{seq: 1, loop: l1}, {seq: 2, loop: l1, clean: true}, {seq: 3, loop: l1, clean: true}}},
		{"not in a loop", []step{{seq: 1}, {seq: 2}}},
		{"first after a region of no loop", []step{{seq: 1}, {seq: 2, loop: l1}, {seq: 3, loop: l1, clean: true}}},
		{"another loop", []step{{seq: 1, loop: l1}, {seq: 2, loop: l2}, {seq: 3, loop: l2, clean: true}, {seq: 4, loop: l1}}},
		{"dirtied gap", []step{{seq: 1, loop: l1}, {seq: 2, loop: l1, dirty: true}, {seq: 3, loop: l1, clean: true}}},
		{"verify", []step{{seq: 1, loop: l1}, {seq: 2, loop: l1, verify: true}, {seq: 3, loop: l1, clean: true}}},
		{"a region between", []step{{seq: 1, loop: l1}, {seq: 3, loop: l1}, {seq: 4, loop: l1, clean: true}}},
		{"a nested region between", []step{{seq: 1, loop: l1}, {seq: 2, nested: true}, {seq: 3, loop: l1}}},
		{"the loop entered again", []step{{seq: 1, loop: l1}, {seq: 2, loop: l2}}},
	}
	for _, tt := range tests {
		var g Gap
		for i, s := range tt.steps {
			var p Proof
			if s.loop != nil {
				p.InLoop(s.loop)
			}
			if s.dirty {
				g.Dirty()
			}
			h := p.Hint(&g, s.seq, s.verify)
			if !s.nested && h.Clean != s.clean {
				t.Errorf("%s: step %d (region %d): clean %v, want %v", tt.name, i, s.seq, h.Clean, s.clean)
			}
			if h.Bounded || h.Writes != nil {
				t.Errorf("%s: step %d: bounded %v, writes %v without WritesIn", tt.name, i, h.Bounded, h.Writes)
			}
			if !s.nested {
				g.Ended(&p, s.seq)
			}
		}
	}
}
