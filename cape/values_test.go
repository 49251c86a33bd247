package cape

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/cape-go/cape/cape/internal/values"
)

// TestOpsAreValues' operators: generated code names cape's, the reductions
// compute with values', converted by number.
func TestOpsAreValues(t *testing.T) {
	for _, c := range []struct {
		op   Op
		want values.Op
	}{
		{OpAdd, values.Add}, {OpMul, values.Mul}, {OpSub, values.Sub}, {OpAnd, values.And}, {OpOr, values.Or},
		{OpXor, values.Xor}, {OpLAnd, values.LAnd}, {OpLOr, values.LOr}, {OpMin, values.Min}, {OpMax, values.Max},
	} {
		if values.Op(c.op) != c.want || c.op.String() != c.want.String() {
			t.Errorf("cape's %v is values' %v", c.op, values.Op(c.op))
		}
	}
}

// TestValuesListRefused gives a region's combine and set malformed values
// lists: each is refused with an error naming the region and the node.
func TestValuesListRefused(t *testing.T) {
	piece := func(p []byte, b ...byte) []byte {
		return append(binary.LittleEndian.AppendUint32(p, uint32(len(b))), b...)
	}
	sum := piece(nil, 1, 0, 0, 0, 0, 0, 0, 0)
	last := piece(nil, 1, 9, 0)
	good := append(append([]byte(nil), sum...), last...)
	for _, c := range []struct {
		name  string
		parts [][]byte
		want  string
	}{
		{"truncated length", [][]byte{good, good[:2]}, "region values (#1): values from node 1: "},
		{"piece beyond the list", [][]byte{good[:len(good)-1]}, "region values (#1): values from node 0: "},
		{"one value short", [][]byte{good, sum}, "region values (#1): values from node 1: 1 values received"},
		{"a wrong size", [][]byte{append(append([]byte(nil), sum...), piece(nil, 1, 9)...), good},
			"region values (#1): combine values: node 0 sent a lastprivate value of 2 bytes, want 3"},
		{"a short partial", [][]byte{good, append(piece(nil, 1), last...)},
			"region values (#1): combine values: node 1 sent a reduction partial of 1 bytes, want 8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &Region{n: &node{}, name: "values", seq: 1}
			Reduce(r, OpAdd, int64(5))
			var v int16
			LastPrivate(r, &v, false)
			err := r.combineValues(c.parts)
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("err %v, want %q", err, c.want)
			}
		})
	}

	r := &Region{n: &node{rank: 1}, name: "values", seq: 1}
	x := Reduce(r, OpAdd, int64(5))
	var v int16
	LastPrivate(r, &v, false)
	if err := r.setValues(piece(sum, 3, 0)); err != nil || x.Result() != 1 || v != 3 {
		t.Fatalf("set: %v, result %d, v %d", err, x.Result(), v)
	}
	for _, b := range [][]byte{sum, piece(sum, 3), good[:3]} {
		if err := r.setValues(b); err == nil || !strings.HasPrefix(err.Error(), "region values (#1): values from the master: ") {
			t.Errorf("set %x: %v", b, err)
		}
	}
}
