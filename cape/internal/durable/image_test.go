package durable

import (
	"bytes"
	"encoding/binary"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cape-go/cape/internal/ckptlog"
)

// fakeArena is an arena in memory, for points.
type fakeArena struct {
	mem   []byte
	used  int
	state []byte
	table []byte
}

func (a *fakeArena) Used() int                     { return a.used }
func (a *fakeArena) Bytes() []byte                 { return a.mem }
func (a *fakeArena) AppendState(dst []byte) []byte { return append(dst, a.state...) }
func (a *fakeArena) AppendTable(dst []byte) []byte { return append(dst, a.table...) }

// TestBoundStopsLogging checks that, without a checkpoint point, logging
// stops before a record would pass the bound, saying so once, and keeps
// the prefix; a joining node is then refused.
func TestBoundStopsLogging(t *testing.T) {
	d, ns := openLog(t, Config{Dir: filepath.Join(t.TempDir(), "ck"), Max: 2500})
	j := &job{mem: make([]byte, testPage)}
	for i, want := range []bool{true, true, true, false} {
		if built := j.region(d, 0, 1000, false); built != want {
			t.Fatalf("region %d: record built %v, want %v", i+1, built, want)
		}
	}
	if d.Logged() != 2 || !ns.has("region main.go:3:2 #3") || !ns.has("would pass --checkpoint-max 2500") {
		t.Fatalf("logged %d regions, notices %q", d.Logged(), *ns)
	}
	if why := d.JoinRefusal(); !strings.Contains(why, "stopped at region #2") {
		t.Fatalf("join refusal: %q", why)
	}
	if st := closeLog(t, d); st.Logged != 2 || st.Size > 2500 {
		t.Fatalf("stats: %+v", st)
	}
}

// TestDefaultBoundNotice checks that the default bound is told at the
// first region logged only when the program has reached no point.
func TestDefaultBoundNotice(t *testing.T) {
	for _, point := range []bool{false, true} {
		d, ns := openLog(t, Config{Dir: filepath.Join(t.TempDir(), "ck")})
		if point {
			d.SawPoint()
		}
		j := &job{mem: make([]byte, testPage)}
		j.region(d, 0, 8, false)
		j.region(d, 0, 8, false)
		closeLog(t, d)
		if told := ns.has("the log is bounded to 67108864 bytes"); told == point || len(*ns) > 1 {
			t.Fatalf("point seen %v: notices %q", point, *ns)
		}
	}
}

// TestCompaction checks the two ways a point compacts the log into an
// image: near the bound (a joining node postpones it), and when logging was
// suspended at the bound (then a joining node is refused, and does not
// postpone it). A restart then restores the last image and replays the
// regions after it into the arena the logged run ended with.
func TestCompaction(t *testing.T) {
	for _, suspend := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "ck")
		d, _ := openLog(t, Config{Dir: dir, Max: 12000})
		j := &job{mem: make([]byte, testPage)}
		a := &fakeArena{mem: j.mem, used: testPage, state: []byte("allocs"), table: []byte("table")}
		vars := [][]byte{{1, 2, 3, 4, 5, 6, 7, 8}, {9, 9, 9, 9, 9, 9, 9, 9}}
		point := func(joining bool) (compacted bool) {
			before := d.compactions
			if joining {
				d.JoinerArrived()
				defer d.JoinerDecided()
			}
			d.Point("main.go:40:3", j.seqs, a, vars)
			return d.compactions > before
		}
		if point(false) {
			t.Fatal("a point compacted a log far from its bound")
		}
		suspended := 0
		for range 12 {
			built := j.region(d, int(j.seqs)*8, 1000, false)
			switch {
			case !suspend && !built:
				t.Fatalf("region %d suspended, though points compact before the bound", j.seqs)
			case !suspend:
				if point(true) {
					t.Fatalf("region %d: a point compacted near the bound while a node joins", j.seqs)
				}
				point(false)
			case !built:
				suspended++
				if why := d.JoinRefusal(); !strings.Contains(why, "suspended at its bound") {
					t.Fatalf("region %d suspended: join refusal %q", j.seqs, why)
				}
				if !point(true) || d.JoinRefusal() != "" {
					t.Fatalf("region %d: the point did not compact the suspended log", j.seqs)
				}
			}
		}
		final := bytes.Clone(j.mem)
		st := closeLog(t, d)
		if st.Compactions < 1 || st.Peak > 12000 || (suspend && suspended != st.Compactions) {
			t.Fatalf("suspend %v: %d regions suspended, stats %+v", suspend, suspended, st)
		}

		d, ns := openLog(t, Config{Dir: dir, Restart: true})
		defer d.Close()
		p := d.Pending()
		if p == nil || p.Point != "main.go:40:3" || d.Logged() != 12 || !ns.has("restoring the image of point main.go:40:3") {
			t.Fatalf("suspend %v: pending %+v, %d regions, notices %q", suspend, p, d.Logged(), *ns)
		}
		if !bytes.Equal(p.Image.Vars, bytes.Join(vars, nil)) || string(p.Image.Alloc) != "allocs" || string(p.Image.Table) != "table" || len(p.Image.Memory) != testPage {
			t.Fatalf("the image: %+v", p.Image)
		}
		if !SameAllocations(p.Image, []byte("allocs")) || SameAllocations(p.Image, []byte("other")) {
			t.Fatal("SameAllocations does not compare the allocator's states")
		}
		mem := bytes.Clone(p.Image.Memory)
		d.Restored(p.Seq, mem, testPage)
		if d.Pending() != nil || d.Logged() != p.Seq {
			t.Fatalf("after the restore: pending %v, logged %d", d.Pending(), d.Logged())
		}
		replay(t, d, mem, p.Seq+1, 12)
		if !bytes.Equal(mem, final) {
			t.Fatalf("suspend %v: the arena restored from the image of region %d and replayed differs", suspend, p.Seq)
		}
	}
}

// TestReplayMessage checks the replay message's round trip and refusals.
func TestReplayMessage(t *testing.T) {
	for _, p := range []*Pending{nil, {Point: "main.go:3:4", Seq: 7}, {Seq: 1}} {
		b := AppendReplay([]byte("x"), 42, p)
		n, got, err := ParseReplay(b[1:])
		if err != nil || n != 42 || (p == nil) != (got == nil) || (p != nil && (got.Point != p.Point || got.Seq != p.Seq || got.Image != nil)) {
			t.Fatalf("pending %+v: %d, %+v, %v", p, n, got, err)
		}
	}
	for _, b := range [][]byte{nil, make([]byte, 7), make([]byte, 12)} {
		if _, _, err := ParseReplay(b); err == nil {
			t.Fatalf("a replay message of %d bytes parsed", len(b))
		}
	}
}

// allocTable is a sorted list of allocations [start, end).
type allocTable [][2]int

func (t allocTable) AllocationAt(off int) (int, int, bool) {
	for i := len(t) - 1; i >= 0; i-- {
		if t[i][0] <= off {
			return t[i][0], t[i][1], true
		}
	}
	return 0, 0, false
}

// words encodes 64-bit words as an image holds them.
func words(ws ...uint64) []byte {
	var b []byte
	for _, w := range ws {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	return b
}

// TestCheckRestore checks an image's sizes and the pointers in its
// variables against the arena's live allocations.
func TestCheckRestore(t *testing.T) {
	const base = 0x10000
	l := Layout{Base: base, Used: 0x1000, Allocs: allocTable{{0x40, 0x100}, {0x100, 0x400}, {0x400, 0x1000}}}
	mem := make([]byte, 0x1000)
	type rows struct {
		N    int64
		Rows []int64
	}
	slice, ptr := reflect.TypeFor[[]int64](), reflect.TypeFor[*int64]()
	for _, c := range []struct {
		name string
		vars []reflect.Type
		img  []byte
		mem  []byte
		want string // "" when accepted
	}{
		{"a slice in an allocation", []reflect.Type{slice}, words(base+0x100, 4, 8), mem, ""},
		{"a nil slice, an int", []reflect.Type{slice, reflect.TypeFor[int64]()}, words(0, 0, 0, 1<<62), mem, ""},
		{"an empty slice at the arena's end", []reflect.Type{slice}, words(base+0x1000, 0, 0), mem, ""},
		{"pointers and plain arrays", []reflect.Type{reflect.TypeFor[[2]*int64](), reflect.TypeFor[[3]float64]()}, words(base+0x40, 0, 1, 2, 3), mem, ""},
		{"the variables' size", []reflect.Type{slice}, words(base, 0), mem, "holds 16 bytes of variables, the point names 24"},
		{"the arena's size", []reflect.Type{ptr}, words(0), mem[:0x800], "holds 2048 bytes of arena, 4096 are in use"},
		{"a length over the capacity", []reflect.Type{slice}, words(base+0x100, 5, 4), mem, "variable 1 ([]int64): the image's slice has length 5 over its capacity 4"},
		{"a capacity without elements", []reflect.Type{slice}, words(0, 0, 4), mem, "no elements but a capacity of 4"},
		{"a huge capacity", []reflect.Type{slice}, words(base+0x100, 0, 1<<61), mem, "has a capacity of"},
		{"outside the arena", []reflect.Type{ptr}, words(base - 8), mem, "points outside the CAPE arena"},
		{"past the arena", []reflect.Type{slice}, words(base+0xFF8, 2, 2), mem, "points outside the CAPE arena"},
		{"across two allocations", []reflect.Type{slice}, words(base+0x3F0, 8, 8), mem, "points past the arena allocation"},
		{"a pointer across two allocations", []reflect.Type{ptr}, words(base + 0xFC), mem, "points past the arena allocation"},
		{"before the first allocation", []reflect.Type{ptr}, words(base + 0x8), mem, "points past the arena allocation"},
		{"an array's element", []reflect.Type{ptr, reflect.TypeFor[[2]*int64]()}, words(base+0x40, base+0x40, base+0x3FC), mem, "variable 2 ([2]*int64): the image's pointer [1]"},
		{"a struct's field", []reflect.Type{reflect.TypeFor[rows]()}, words(1, base+0x40, 1, 100), mem, "the image's pointer .Rows (0x10040, 800 bytes) points past"},
	} {
		err := CheckRestore(&ckptlog.Image{Vars: c.img, Memory: c.mem}, c.vars, l)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestMalformedImageRefused checks that a restart refuses a log whose
// image (authentic, so written by the job) does not parse, before anything
// is replayed.
func TestMalformedImageRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ck")
	d, _ := openLog(t, Config{Dir: dir})
	im := ckptlog.AppendImage(nil, &ckptlog.Image{Seq: 3, Point: "main.go:1:1", Memory: make([]byte, 64)})
	hdr := ckptlog.AppendHeader(ckptlog.Frame(ckptlog.KindHeader, 20), testHeader)
	frame := append(ckptlog.Frame(ckptlog.KindImage, len(im)), im[:len(im)-1]...) // its memory cut short
	if err := d.w.Replace(hdr, frame); err != nil {
		t.Fatal(err)
	}
	closeLog(t, d)
	_, err := Open(Config{Dir: dir, Restart: true, Header: testHeader, Notice: func(string) {}})
	if !errors.Is(err, ckptlog.ErrCorrupt) || !strings.Contains(err.Error(), "the log's image") {
		t.Fatalf("a malformed image: %v, want the log's image refused as corrupt", err)
	}
}

// TestRestore checks that an image is written into the arena and the
// variables only once it is accepted, and the arena checked before the
// variables are written.
func TestRestore(t *testing.T) {
	const base = 0x10000
	l := Layout{Base: base, Used: 16, Allocs: allocTable{{0, 16}}}
	i64 := reflect.TypeFor[int64]()
	bad := errors.New("a stray pointer")
	for _, c := range []struct {
		name      string
		img       *ckptlog.Image
		check     error
		want      string // "" when restored
		mem, vars byte   // the first byte of the arena and of the variable after
	}{
		{"restored", &ckptlog.Image{Vars: words(7), Memory: bytes.Repeat([]byte{9}, 16)}, nil, "", 9, 7},
		{"refused", &ckptlog.Image{Vars: words(7, 8), Memory: bytes.Repeat([]byte{9}, 16)}, nil, "holds 16 bytes of variables", 1, 1},
		{"the arena's check", &ckptlog.Image{Vars: words(7), Memory: bytes.Repeat([]byte{9}, 16)}, bad, "the image's arena: a stray pointer", 9, 1},
	} {
		mem, v := bytes.Repeat([]byte{1}, 16), bytes.Repeat([]byte{1}, 8)
		checked := false
		err := Restore(c.img, []reflect.Type{i64}, [][]byte{v}, mem, l, func(b []byte) error {
			checked = true
			if b[0] != c.img.Memory[0] {
				t.Errorf("%s: the check saw the arena before the image was written", c.name)
			}
			return c.check
		})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		case c.check != nil && !errors.Is(err, c.check):
			t.Errorf("%s: %v does not wrap the check's error", c.name, err)
		}
		if mem[0] != c.mem || v[0] != c.vars || checked != (c.mem == 9) {
			t.Errorf("%s: arena %d, variable %d, checked %v; want %d, %d, %v", c.name, mem[0], v[0], checked, c.mem, c.vars, c.mem == 9)
		}
	}
}
