package values

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"testing"
)

func le64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// TestReducerNodes folds an entry value with three nodes' partials, in rank
// order, then sets the result on a second reducer as a slave would.
func TestReducerNodes(t *testing.T) {
	x, err := NewReducer(Sub, int64(100))
	if err != nil {
		t.Fatal(err)
	}
	if x.Identity() != 0 || x.Result() != 100 {
		t.Fatalf("new reducer: identity %d result %d, want 0 and 100", x.Identity(), x.Result())
	}
	x.Partial(5)
	if got := x.PartialBytes(); !slices.Equal(got, le64(5)) {
		t.Fatalf("PartialBytes = %x, want %x", got, le64(5))
	}
	if err := x.Combine([][]byte{x.PartialBytes(), le64(7), le64(uint64(math.MaxUint64))}); err != nil {
		t.Fatal(err)
	}
	if x.Result() != 111 {
		t.Fatalf("result %d, want 100+5+7-1 = 111", x.Result())
	}
	y, _ := NewReducer(Sub, int64(-3))
	if err := y.Set(x.Bytes()); err != nil || y.Result() != 111 {
		t.Fatalf("Set: result %d, err %v; want 111", y.Result(), err)
	}
}

func TestReducerRefuses(t *testing.T) {
	if _, err := NewReducer(Or, 1.5); err == nil || err.Error() != "operator | does not apply to float64" {
		t.Errorf("NewReducer(|, float64): %v", err)
	}
	if _, err := MakeArrayReducer(Xor, []float32{1}); err == nil || err.Error() != "operator ^ does not apply to float32" {
		t.Errorf("MakeArrayReducer(^, float32): %v", err)
	}
	x, _ := NewReducer(Add, int32(0))
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"short partial", x.Combine([][]byte{{1, 0, 0, 0}, {1, 0, 0}}), "node 1 sent a reduction partial of 3 bytes, want 4"},
		{"long partial", x.Combine([][]byte{make([]byte, 8)}), "node 0 sent a reduction partial of 8 bytes, want 4"},
		{"short result", x.Set([]byte{1}), "reduction result of 1 bytes, want 4"},
	} {
		if c.err == nil || c.err.Error() != c.want {
			t.Errorf("%s: %v, want %q", c.name, c.err, c.want)
		}
	}
	if x.Result() != 0 {
		t.Errorf("refused combine or set changed the result to %d", x.Result())
	}
}

func TestThrough(t *testing.T) {
	v := 2.0
	x, _ := NewReducer(Mul, v)
	through := Through(x, &v)
	v = 3 // the loop's work on this node
	if got := through.PartialBytes(); !slices.Equal(got, le64(math.Float64bits(3))) {
		t.Fatalf("partial %x, want 3.0's bytes", got)
	}
	if err := through.Combine([][]byte{through.PartialBytes(), le64(math.Float64bits(0.5))}); err != nil {
		t.Fatal(err)
	}
	if v != 3 || x.Result() != 3 {
		t.Fatalf("after Combine: v %v, result %v; want 2*3*0.5 = 3", v, x.Result())
	}
	if err := through.Set(le64(math.Float64bits(-1))); err != nil || v != -1 {
		t.Fatalf("after Set: v %v, err %v; want -1", v, err)
	}
	if err := through.Set([]byte{1}); err == nil || v != -1 {
		t.Fatalf("a short result: err %v, v %v", err, v)
	}
}

func TestArrayReducer(t *testing.T) {
	entry := []int16{10, -20, math.MaxInt16}
	x, err := MakeArrayReducer(Add, entry)
	if err != nil {
		t.Fatal(err)
	}
	entry[0] = 99 // the reducer copied it
	p := []int16{7, 7, 7}
	x.Init(p)
	if !slices.Equal(p, []int16{0, 0, 0}) {
		t.Fatalf("Init: %v", p)
	}
	p[0], p[2] = 1, 1
	x.Partial(p)
	p[1] = 50 // Partial copied it
	other := []byte{2, 0, 3, 0, 0, 0}
	if err := x.Combine([][]byte{x.PartialBytes(), other}); err != nil {
		t.Fatal(err)
	}
	got := make([]int16, 3)
	x.Result(got)
	if want := []int16{13, -17, math.MinInt16}; !slices.Equal(got, want) {
		t.Fatalf("result %v, want %v (the last one wraps)", got, want)
	}
	// Combining again starts from the entry value, not the last result.
	if err := x.Combine([][]byte{make([]byte, 6)}); err != nil {
		t.Fatal(err)
	}
	if x.Result(got); !slices.Equal(got, []int16{10, -20, math.MaxInt16}) {
		t.Fatalf("second combine %v", got)
	}
	y, _ := MakeArrayReducer(Min, []int16{0, 0, 0})
	if !slices.Equal(y.PartialBytes(), []byte{0xff, 0x7f, 0xff, 0x7f, 0xff, 0x7f}) {
		t.Fatalf("min's partial starts at %x", y.PartialBytes())
	}
	if err := y.Set(x.Bytes()); err != nil {
		t.Fatal(err)
	}
	if y.Result(got); !slices.Equal(got, []int16{10, -20, math.MaxInt16}) {
		t.Fatalf("Set: %v", got)
	}
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"short partial", x.Combine([][]byte{make([]byte, 6), make([]byte, 5)}), "node 1 sent an array reduction partial of 5 bytes, want 6"},
		{"long result", x.Set(make([]byte, 8)), "array reduction result of 8 bytes, want 6"},
	} {
		if c.err == nil || c.err.Error() != c.want {
			t.Errorf("%s: %v, want %q", c.name, c.err, c.want)
		}
	}
	empty, _ := MakeArrayReducer(Max, []float64(nil))
	if err := empty.Combine([][]byte{nil, nil}); err != nil || empty.Bytes() != nil {
		t.Errorf("empty array: %v, %x", err, empty.Bytes())
	}
}

func TestLastPrivateOwner(t *testing.T) {
	piece := func(flag byte, v uint32) []byte { return binary.LittleEndian.AppendUint32([]byte{flag}, v) }
	for _, c := range []struct {
		name  string
		parts [][]byte
		want  uint32
		err   string
	}{
		{name: "one owner", parts: [][]byte{piece(0, 1), piece(1, 2), piece(0, 3)}, want: 2},
		{name: "the master owns it", parts: [][]byte{piece(1, 1), piece(0, 2)}, want: 1},
		{name: "several claim it: the highest rank", parts: [][]byte{piece(1, 1), piece(0, 2), piece(1, 3)}, want: 3},
		{name: "nobody owns it: unchanged", parts: [][]byte{piece(0, 1), piece(0, 2)}, want: 42},
		{name: "a flag other than 1 is no claim", parts: [][]byte{piece(2, 1), piece(0xff, 2)}, want: 42},
		{name: "no nodes", want: 42},
		{name: "short piece: nothing stored", parts: [][]byte{piece(1, 1), piece(1, 2)[:4]}, want: 42,
			err: "node 1 sent a lastprivate value of 4 bytes, want 5"},
		{name: "bare flag", parts: [][]byte{{1}}, want: 42, err: "node 0 sent a lastprivate value of 1 bytes, want 5"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := uint32(42)
			x := NewLastPrivate(&v, false)
			err := x.Combine(c.parts)
			if c.err == "" && err != nil || c.err != "" && (err == nil || err.Error() != c.err) {
				t.Fatalf("err %v, want %q", err, c.err)
			}
			if v != c.want {
				t.Fatalf("value %d, want %d", v, c.want)
			}
		})
	}
}

func TestLastPrivatePieces(t *testing.T) {
	type pair struct{ a, b int32 }
	v := pair{1, -1}
	owner, other := NewLastPrivate(&v, true), NewLastPrivate(&v, false)
	if want := []byte{1, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}; !slices.Equal(owner.PartialBytes(), want) {
		t.Errorf("owner's piece %x, want %x", owner.PartialBytes(), want)
	}
	if got := other.PartialBytes(); got[0] != 0 || len(got) != 9 {
		t.Errorf("other's piece %x", got)
	}
	if err := other.Set([]byte{2, 0, 0, 0, 3, 0, 0, 0}); err != nil || v != (pair{2, 3}) {
		t.Errorf("Set: %v, %v", v, err)
	}
	if !slices.Equal(owner.Bytes(), []byte{2, 0, 0, 0, 3, 0, 0, 0}) {
		t.Errorf("Bytes %x", owner.Bytes())
	}
	if err := other.Set(make([]byte, 9)); err == nil || err.Error() != "lastprivate value of 9 bytes, want 8" {
		t.Errorf("a long value: %v", err)
	}
}

// TestLastPrivateString: a lastprivate string's bytes travel, of any
// length, and the owner's become the variable's on every node.
func TestLastPrivateString(t *testing.T) {
	v := "start"
	owner := NewLastPrivate(&v, true)
	if got := owner.PartialBytes(); got[0] != 1 || string(got[1:]) != "start" {
		t.Fatalf("owner's piece %q", got)
	}
	w := "mine"
	other := NewLastPrivate(&w, false)
	if err := other.Combine([][]byte{append([]byte{0}, "x"...), append([]byte{1}, "the last section"...), {0}}); err != nil || w != "the last section" {
		t.Fatalf("Combine: %q, %v", w, err)
	}
	if err := other.Set(nil); err != nil || w != "" {
		t.Fatalf("Set of an empty string: %q, %v", w, err)
	}
	if err := other.Combine([][]byte{{}}); err == nil {
		t.Fatal("a piece without its flag was taken")
	}
	type label string
	named := label("old")
	if err := NewLastPrivate(&named, false).Combine([][]byte{append([]byte{1}, "new"...)}); err != nil || named != "new" {
		t.Fatalf("a named string type: %q, %v", named, err)
	}
	at := "none"
	la := NewLastAssigned(&at, 3)
	p := la.PartialBytes()
	if err := la.Combine([][]byte{append(p[:8:8], "three"...), append(binary.LittleEndian.AppendUint64(nil, 7), "seven"...)}); err != nil || at != "seven" {
		t.Fatalf("LastAssigned: %q, %v", at, err)
	}
}

// TestList registers a reduction, a lastprivate and an array reduction and
// plays a 2-node exchange: the master combines the pieces by rank, the
// slave sets the master's results.
func TestList(t *testing.T) {
	type node struct {
		l    List
		sum  *Reducer[int64]
		last int8
		hist ArrayReducer[uint8]
	}
	newNode := func(owner bool, part int64, hist []uint8) *node {
		n := &node{}
		n.sum, _ = NewReducer(Add, int64(1000))
		n.l.Add(n.sum)
		n.l.Add(NewLastPrivate(&n.last, owner))
		n.hist, _ = MakeArrayReducer(Add, []uint8{1, 1})
		n.l.Add(&n.hist)
		n.sum.Partial(part)
		n.last = int8(part)
		n.hist.Partial(hist)
		return n
	}
	master, slave := newNode(false, 3, []uint8{1, 2}), newNode(true, 4, []uint8{255, 0})
	pieces := func(n *node) [][]byte {
		var p [][]byte
		for _, v := range n.l.All() {
			p = append(p, v.PartialBytes())
		}
		return p
	}
	if err := master.l.Combine([][][]byte{pieces(master), pieces(slave)}); err != nil {
		t.Fatal(err)
	}
	var results [][]byte
	for _, v := range master.l.All() {
		results = append(results, slices.Clone(v.Bytes()))
	}
	if err := slave.l.Set(results); err != nil {
		t.Fatal(err)
	}
	for name, n := range map[string]*node{"master": master, "slave": slave} {
		hist := make([]uint8, 2)
		n.hist.Result(hist)
		if n.sum.Result() != 1007 || n.last != 4 || !slices.Equal(hist, []uint8{1, 3}) {
			t.Errorf("%s: sum %d last %d hist %v; want 1007, 4, [1 3]", name, n.sum.Result(), n.last, hist)
		}
	}

	for _, c := range []struct {
		name  string
		parts [][][]byte
		want  string
	}{
		{"a node with too few", [][][]byte{pieces(master), pieces(slave)[:2]}, "node 1 sent 2 values, this node registered 3"},
		{"a node with too many", [][][]byte{append(pieces(master), nil)}, "node 0 sent 4 values, this node registered 3"},
		{"a bad piece", [][][]byte{pieces(master), {le64(1), {0}, {0, 0}}}, "node 1 sent a lastprivate value of 1 bytes, want 2"},
	} {
		if err := master.l.Combine(c.parts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if err := slave.l.Set(results[:2]); err == nil || err.Error() != "2 values received, this node registered 3" {
		t.Errorf("Set with too few: %v", err)
	}
	if err := slave.l.Set([][]byte{le64(1), {1, 2}, {0, 0}}); err == nil || err.Error() != "lastprivate value of 2 bytes, want 1" {
		t.Errorf("Set with a bad piece: %v", err)
	}

	var empty List
	if empty.Len() != 0 || empty.All() != nil || empty.Combine([][][]byte{nil, nil}) != nil || empty.Set(nil) != nil {
		t.Error("the empty list is not empty")
	}
	if err := empty.Combine([][][]byte{nil, {nil}}); err == nil {
		t.Error("an empty list accepted a value")
	}
}

// TestEmptyListAllocates checks that a region with no values costs nothing.
func TestEmptyListAllocates(t *testing.T) {
	var l List
	parts := [][][]byte{nil, nil, nil}
	if n := testing.AllocsPerRun(100, func() {
		if l.Combine(parts) != nil || l.Set(nil) != nil || l.Len() != 0 {
			t.Fatal("empty list")
		}
	}); n != 0 {
		t.Errorf("an empty list allocates %v times per exchange", n)
	}
}

// BenchmarkArrayCombine folds four nodes' partials of a 64 Ki-element
// float64 array reduction: the master's work for it at every region.
func BenchmarkArrayCombine(b *testing.B) {
	x, err := MakeArrayReducer(Add, make([]float64, 1<<16))
	if err != nil {
		b.Fatal(err)
	}
	parts := make([][]byte, 4)
	for i := range parts {
		parts[i] = x.PartialBytes()
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(parts) * len(parts[0])))
	for b.Loop() {
		if err := x.Combine(parts); err != nil {
			b.Fatal(err)
		}
	}
}

func TestLastAssigned(t *testing.T) {
	piece := func(at int64, v uint32) []byte {
		return binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint64(nil, uint64(at)), v)
	}
	for _, c := range []struct {
		name  string
		parts [][]byte
		want  uint32
		err   string
	}{
		{name: "the latest iteration", parts: [][]byte{piece(7, 1), piece(3, 2), piece(-1, 3)}, want: 1},
		{name: "a later node", parts: [][]byte{piece(2, 1), piece(9, 2)}, want: 2},
		{name: "no node assigned it: unchanged", parts: [][]byte{piece(-1, 1), piece(-1, 2)}, want: 42},
		{name: "no nodes", want: 42},
		{name: "a bad index", parts: [][]byte{piece(-2, 1)}, want: 42, err: "node 0 sent a lastprivate value from iteration -2"},
		{name: "short piece", parts: [][]byte{piece(1, 1), piece(2, 2)[:9]}, want: 42,
			err: "node 1 sent a lastprivate value of 9 bytes, want 12"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := uint32(42)
			x := NewLastAssigned(&v, -1)
			err := x.Combine(c.parts)
			if c.err == "" && err != nil || c.err != "" && (err == nil || err.Error() != c.err) {
				t.Fatalf("err %v, want %q", err, c.err)
			}
			if v != c.want {
				t.Fatalf("value %d, want %d", v, c.want)
			}
		})
	}
	v := uint32(5)
	if got := NewLastAssigned(&v, 3).PartialBytes(); !bytes.Equal(got, piece(3, 5)) {
		t.Fatalf("piece %x, want %x", got, piece(3, 5))
	}
}
