package durable

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cape-go/cape/delta"
	"github.com/cape-go/cape/internal/ckptlog"
)

const testPage = 4096

var testHeader = ckptlog.Header{ArenaBase: 1 << 40, ArenaSize: 1 << 20, PageSize: testPage}

// notes collects a log's notices.
type notes []string

func (n *notes) add(s string) { *n = append(*n, s) }

// has reports whether a notice contains s.
func (n notes) has(s string) bool {
	for _, x := range n {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}

func openLog(t *testing.T, cfg Config) (*Log, *notes) {
	t.Helper()
	ns := &notes{}
	cfg.Notice, cfg.Header = ns.add, testHeader
	d, err := Open(cfg)
	if err != nil {
		t.Fatalf("open %s (restart %v): %v", cfg.Dir, cfg.Restart, err)
	}
	return d, ns
}

// job is a master's run in memory: an arena, and the regions it logs.
type job struct {
	mem  []byte
	seqs uint64
}

// region runs region seq on the arena: it writes n bytes of value seq at
// off, and logs the merged delta as the master does (the entry hash, or
// the chain when clean). It returns whether build was called.
func (j *job) region(d *Log, off, n int, clean bool) bool {
	j.seqs++
	seq := j.seqs
	rec := &ckptlog.Region{Seq: seq, Name: fmt.Sprintf("main.go:%d:2", seq), Extent: uint64(len(j.mem)),
		Nodes: []ckptlog.Counts{{Data: uint64(n)}}, Values: []byte{byte(seq)}}
	if d.Chained(seq, len(j.mem), clean) {
		rec.EntryHash = ChainedHash
	} else {
		rec.EntryHash = ArenaHash(j.mem, testPage, nil, nil)
	}
	data := bytes.Repeat([]byte{byte(seq)}, n)
	copy(j.mem[off:], data)
	rec.Runs = Runs(&delta.Delta{Runs: []delta.Run{{Off: uint64(off), Data: data}}})
	built := false
	d.Append(seq, len(j.mem), func() *ckptlog.Region { built = true; return rec })
	return built
}

// replay replays regions from..to of d into mem, as a restart does.
func replay(t *testing.T, d *Log, mem []byte, from, to uint64) {
	t.Helper()
	for seq := from; seq <= to; seq++ {
		rec, md, err := d.Replay(seq, fmt.Sprintf("main.go:%d:2", seq), mem, testPage)
		if err != nil {
			t.Fatalf("replay region %d: %v", seq, err)
		}
		if len(rec.Values) != 1 || rec.Values[0] != byte(seq) {
			t.Fatalf("region %d: values %v", seq, rec.Values)
		}
		if err := md.Apply(mem); err != nil {
			t.Fatalf("region %d: apply: %v", seq, err)
		}
		d.Injected(seq, mem, testPage)
	}
}

func closeLog(t *testing.T, d *Log) Stats {
	t.Helper()
	st, ok := d.Close()
	if !ok {
		t.Fatal("a master's log closed without statistics")
	}
	return st
}

// TestAppendReopenReplay logs regions (one with a chained entry hash),
// reopens the log for a restart and replays it into a fresh arena: the
// arena ends as the logged run's, and the restart appends after it.
func TestAppendReopenReplay(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ck")
	d, _ := openLog(t, Config{Dir: dir})
	j := &job{mem: make([]byte, 3*testPage)}
	j.region(d, 100, 50, false)
	j.region(d, testPage-10, 20, true) // chained: nothing written since region 1
	j.region(d, 2*testPage, 300, false)
	if st := closeLog(t, d); st.Logged != 3 || st.Size == 0 {
		t.Fatalf("stats after 3 regions: %+v", st)
	}
	if _, err := Open(Config{Dir: dir, Header: testHeader, Notice: func(string) {}}); err == nil || !strings.Contains(err.Error(), "add --restart") {
		t.Fatalf("reopened without --restart: %v", err)
	}

	d, ns := openLog(t, Config{Dir: dir, Restart: true})
	if d.Logged() != 3 || d.Pending() != nil || !ns.has("replaying regions #1 to #3") {
		t.Fatalf("restart: %d regions to replay, pending %v, notices %q", d.Logged(), d.Pending(), *ns)
	}
	mem := make([]byte, len(j.mem))
	replay(t, d, mem, 1, 3)
	if !bytes.Equal(mem, j.mem) {
		t.Fatal("the replayed arena differs from the logged run's")
	}
	if _, _, err := d.Replay(4, "main.go:4:2", mem, testPage); err == nil {
		t.Fatal("replayed a region the log does not hold")
	}
	j.region(d, 0, 10, false)
	closeLog(t, d)
	d, _ = openLog(t, Config{Dir: dir, Restart: true})
	defer d.Close()
	if d.Logged() != 4 {
		t.Fatalf("after a restart appended region 4: %d regions logged", d.Logged())
	}
}

// TestRestartWithoutLog checks that a restart from an empty directory
// starts from the beginning, saying so.
func TestRestartWithoutLog(t *testing.T) {
	d, ns := openLog(t, Config{Dir: filepath.Join(t.TempDir(), "ck"), Restart: true})
	defer d.Close()
	if d.Logged() != 0 || !ns.has("holds no log: the job starts from the beginning") {
		t.Fatalf("restart without a log: %d regions, notices %q", d.Logged(), *ns)
	}
}

// TestReplayRefusesDivergence checks that a replay refuses another
// region, another extent, another arena at entry, and sequential code that
// wrote the arena before a chained region, with errors matching
// ErrDiverged.
func TestReplayRefusesDivergence(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ck")
	d, _ := openLog(t, Config{Dir: dir})
	j := &job{mem: make([]byte, 2*testPage)}
	j.region(d, 0, 10, false)
	j.region(d, 20, 10, true)
	closeLog(t, d)

	for _, c := range []struct {
		name  string
		seq   uint64
		label string
		mem   func([]byte) []byte
		want  string
	}{
		{"another region", 1, "main.go:9:2", nil, "the log's region #1 is main.go:1:2"},
		{"another extent", 1, "", func(m []byte) []byte { return make([]byte, testPage) }, "the arena at the region's entry differs"},
		{"another arena", 1, "", func(m []byte) []byte { m[5] = 1; return m }, "the arena at the region's entry differs"},
		{"a write before a chained region", 2, "", func(m []byte) []byte { m[4000] = 1; return m }, "the arena at the region's entry differs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, _ := openLog(t, Config{Dir: dir, Restart: true})
			defer d.Close()
			mem := make([]byte, len(j.mem))
			replay(t, d, mem, 1, c.seq-1)
			if c.mem != nil {
				mem = c.mem(mem)
			}
			label := c.label
			if label == "" {
				label = fmt.Sprintf("main.go:%d:2", c.seq)
			}
			_, _, err := d.Replay(c.seq, label, mem, testPage)
			if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("replay: %v, want ErrDiverged saying %q", err, c.want)
			}
		})
	}
}

// frames returns the offsets of the payloads of a log's frames.
func frames(b []byte) []int {
	var offs []int
	for off := 0; off+ckptlog.FrameHead <= len(b); {
		n := int(binary.LittleEndian.Uint64(b[off+8:]))
		offs = append(offs, off+ckptlog.FrameHead)
		off += ckptlog.FrameHead + n
	}
	return offs
}

// TestTornTailAndAlteredRecord checks that a restart drops a torn tail
// (saying so) and appends after the intact prefix, and refuses a log whose
// record was changed and its checksum recomputed (ckptlog.ErrAltered).
func TestTornTailAndAlteredRecord(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ck")
	d, _ := openLog(t, Config{Dir: dir})
	j := &job{mem: make([]byte, testPage)}
	for range 3 {
		j.region(d, 0, 64, false)
	}
	closeLog(t, d)
	path := filepath.Join(dir, ckptlog.LogName)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	if err := os.WriteFile(path, b[:len(b)-5], 0o600); err != nil {
		t.Fatal(err)
	}
	d, ns := openLog(t, Config{Dir: dir, Restart: true})
	if d.Logged() != 2 || !ns.has("dropped a torn tail") {
		t.Fatalf("torn tail: %d regions, notices %q", d.Logged(), *ns)
	}
	mem := make([]byte, testPage)
	replay(t, d, mem, 1, 2)
	j.mem, j.seqs = mem, 2
	j.region(d, 0, 64, false)
	closeLog(t, d)
	d, _ = openLog(t, Config{Dir: dir, Restart: true})
	if d.Logged() != 3 {
		t.Fatalf("after the torn tail was replaced: %d regions", d.Logged())
	}
	closeLog(t, d)

	b, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	offs := frames(b)
	if len(offs) != 4 {
		t.Fatalf("%d frames, want a header and 3 regions", len(offs))
	}
	off, end := offs[2], offs[3]-ckptlog.FrameHead // region 2's payload
	b[end-1] ^= 1
	head := b[off-ckptlog.FrameHead : off]
	sum := crc32.Update(0, crc32.MakeTable(crc32.Castagnoli), head[:16])
	sum = crc32.Update(sum, crc32.MakeTable(crc32.Castagnoli), head[20:])
	sum = crc32.Update(sum, crc32.MakeTable(crc32.Castagnoli), b[off:end])
	binary.LittleEndian.PutUint32(head[16:], sum)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Open(Config{Dir: dir, Restart: true, Header: testHeader, Notice: func(string) {}})
	if !errors.Is(err, ckptlog.ErrAltered) {
		t.Fatalf("a record altered with its checksum recomputed: %v, want ErrAltered", err)
	}
}

// TestOpenRefusesAnotherArena checks that a log of another arena is not
// replayed.
func TestOpenRefusesAnotherArena(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ck")
	d, _ := openLog(t, Config{Dir: dir})
	(&job{mem: make([]byte, testPage)}).region(d, 0, 8, false)
	closeLog(t, d)
	for _, h := range []ckptlog.Header{
		{ArenaBase: 2 << 40, ArenaSize: 1 << 20, PageSize: testPage},
		{ArenaBase: 1 << 40, ArenaSize: 1 << 19, PageSize: testPage},
		{ArenaBase: 1 << 40, ArenaSize: 1 << 20, PageSize: 2 * testPage},
	} {
		_, err := Open(Config{Dir: dir, Restart: true, Header: h, Notice: func(string) {}})
		if err == nil || !strings.Contains(err.Error(), "the log was written with an arena at") {
			t.Fatalf("restart with arena %+v: %v", h, err)
		}
	}
}

// refusesOtherRun writes a log whose header set marks 1 (first sees the
// log, open), then restarts it with a header set marks 2, which must be
// refused with refusal, and with the same header and testHeader (nothing
// marked: an earlier version's), which must be accepted (reopened sees
// each).
func refusesOtherRun(t *testing.T, set func(*ckptlog.Header, byte), refusal string, first, reopened func(*Log)) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ck")
	h := testHeader
	set(&h, 1)
	d, err := Open(Config{Dir: dir, Header: h, Notice: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	first(d)
	(&job{mem: make([]byte, testPage)}).region(d, 0, 8, false)
	closeLog(t, d)
	other := h
	set(&other, 2)
	_, err = Open(Config{Dir: dir, Restart: true, Header: other, Notice: func(string) {}})
	if err == nil || !strings.Contains(err.Error(), refusal) {
		t.Fatalf("restart by another run: %v, want %q", err, refusal)
	}
	for i, same := range []ckptlog.Header{h, testHeader} {
		d, err := Open(Config{Dir: dir, Restart: true, Header: same, Notice: func(string) {}})
		if err != nil {
			t.Fatalf("restart %d with the same run's header or an unmarked one: %v", i, err)
		}
		reopened(d)
		closeLog(t, d)
	}
}

// TestOpenRefusesAnotherProgram: a restart by another build of the program
// (another digest) is refused; one of a program without a digest, or of a
// log without one, is not checked.
func TestOpenRefusesAnotherProgram(t *testing.T) {
	refusesOtherRun(t, func(h *ckptlog.Header, b byte) { h.Program[0] = b },
		"the log was written by another build of the program", func(*Log) {}, func(*Log) {})
}

// TestCheckCounts checks seed 000's consistency counts.
func TestCheckCounts(t *testing.T) {
	md := &delta.Delta{Runs: []delta.Run{{Off: 0, Data: make([]byte, 30)}}}
	for _, c := range []struct {
		nodes []ckptlog.Counts
		ok    bool
	}{
		{[]ckptlog.Counts{{Data: 30}}, true},
		{[]ckptlog.Counts{{Data: 10}, {Sent: 5, Recvd: 9, Data: 20}}, true},
		{[]ckptlog.Counts{{Data: 10}, {Sent: 0, Recvd: 9, Data: 20}}, false}, // a slave sent nothing
		{[]ckptlog.Counts{{Data: 10}, {Sent: 5, Recvd: 0, Data: 20}}, false}, // nor received
		{[]ckptlog.Counts{{Data: 10}, {Sent: 5, Recvd: 9, Data: 19}}, false}, // more merged than sent
	} {
		err := CheckCounts(&ckptlog.Region{Nodes: c.nodes}, md)
		if (err == nil) != c.ok {
			t.Errorf("counts %+v: %v, want ok %v", c.nodes, err, c.ok)
		}
	}
}

// TestJoinFollowsLog checks a joining node's log: it replays the regions
// the master logged, sees the ones appended since once it takes the
// follower's new entries, and never appends or compacts.
func TestJoinFollowsLog(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ck")
	m, _ := openLog(t, Config{Dir: dir})
	m.JoinerArrived() // the writer holds no record back
	defer m.Close()
	j := &job{mem: make([]byte, 2*testPage)}
	j.region(m, 0, 100, false)
	j.region(m, 50, 100, true)

	d, ns := openJoinWhenLogged(t, dir, 2)
	if d.Logged() != 2 || !ns.has("join: replaying regions #1 to #2") {
		t.Fatalf("join: %d regions, notices %q", d.Logged(), *ns)
	}
	mem := make([]byte, len(j.mem))
	replay(t, d, mem, 1, 2)

	j.region(m, 4000, 200, false)
	noAdopt := func() error { t.Fatal("a joining node adopted an image of an uncompacted log"); return nil }
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		last, image, err := d.Follow(3, noAdopt)
		if err != nil || image != nil || time.Now().After(deadline) {
			t.Fatalf("follow the log to region 3: last %d, image %v, %v", last, image, err)
		}
		if last == 3 {
			break
		}
	}
	replay(t, d, mem, 3, 3)
	if !bytes.Equal(mem, j.mem) {
		t.Fatal("the joining node's arena differs from the master's")
	}
	d.Append(4, len(mem), func() *ckptlog.Region { t.Fatal("a joining node built a record"); return nil })
	d.Point("main.go:1:1", 3, &fakeArena{mem: mem, used: len(mem)}, nil)
	if _, ok := d.Close(); ok {
		t.Fatal("a joining node's log closed with statistics")
	}
}

// openJoinWhenLogged waits until the log in dir holds region last (the
// writer writes records in the background), then opens a joining node's
// log on it, its notices going to ns.
func openJoinWhenLogged(t *testing.T, dir string, last uint64) (d *Log, ns *notes) {
	t.Helper()
	cd, err := ckptlog.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		s, err := cd.Scan(RecordLimit(int(testHeader.ArenaSize)))
		if err != nil {
			t.Fatal(err)
		}
		if s.Last() >= last {
			break
		}
		if !time.Now().Before(deadline) {
			t.Fatalf("the log holds no region #%d after 10s", last)
		}
	}
	fl, err := cd.Follow(RecordLimit(int(testHeader.ArenaSize)))
	if err != nil {
		t.Fatal(err)
	}
	ns = &notes{}
	if d, err = OpenJoin(cd, fl, testHeader, ns.add); err != nil {
		t.Fatal(err)
	}
	return d, ns
}

// TestJoinFollowsCompaction checks a joining node behind a compaction of
// the log: Follow returns the image the compacted log starts with when the
// node may adopt it, and refuses to go on, naming the region the node was
// at, when it may not.
func TestJoinFollowsCompaction(t *testing.T) {
	for _, refuse := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "ck")
		m, _ := openLog(t, Config{Dir: dir, Max: 12000})
		j := &job{mem: make([]byte, testPage)}
		a := &fakeArena{mem: j.mem, used: testPage, state: []byte("allocs")}
		j.region(m, 0, 1000, false)
		d, ns := openJoinWhenLogged(t, dir, 1)
		for m.compactions == 0 {
			if j.seqs > 20 {
				t.Fatal("the master's log never compacted")
			}
			j.region(m, int(j.seqs)*8, 1000, false)
			m.Point("main.go:40:3", j.seqs, a, nil)
		}
		adopted := 0
		adopt := func() error {
			adopted++
			if refuse {
				return errors.New("this node had asked to be admitted")
			}
			return nil
		}
		var image *Pending
		var err error
		for deadline := time.Now().Add(10 * time.Second); image == nil; time.Sleep(time.Millisecond) {
			var last uint64
			last, image, err = d.Follow(2, adopt)
			if err != nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("refuse %v: no image after 10s (last %d)", refuse, last)
			}
		}
		switch {
		case adopted != 1:
			t.Errorf("refuse %v: asked to adopt %d times, want once", refuse, adopted)
		case refuse && (err == nil || !strings.Contains(err.Error(), "compacted its log past region #2") || !strings.Contains(err.Error(), "had asked")):
			t.Errorf("refused adoption: %v", err)
		case !refuse && (err != nil || image.Point != "main.go:40:3" || image.Seq < 2 || !ns.has("this node restores it there")):
			t.Errorf("adopted: image %+v, %v, notices %q", image, err, *ns)
		}
		d.Close()
		closeLog(t, m)
	}
}

// TestOpenRefusesOtherArguments: a restart by a run with other arguments
// is refused; a log without their digest (an earlier version's) is not
// checked. The start hash a compacted log records is checked once, at the
// first region or point.
func TestOpenRefusesOtherArguments(t *testing.T) {
	refusesOtherRun(t, func(h *ckptlog.Header, b byte) { h.Args[0] = b }, "with other arguments",
		func(d *Log) {
			if err := d.Started(func() uint64 { return 42 }); err != nil || d.hdr.Start != 42 {
				t.Fatalf("Started: %v, header's start %d", err, d.hdr.Start)
			}
		},
		func(d *Log) {
			// A log of records has no start hash: nothing to check.
			if err := d.Started(func() uint64 { return 7 }); err != nil {
				t.Fatalf("Started on a log of records: %v", err)
			}
		})
	h := testHeader
	d, err := Open(Config{Dir: filepath.Join(t.TempDir(), "ck"), Header: h, Notice: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	defer closeLog(t, d)
	d.logStart = 42
	if err := d.Started(func() uint64 { return 43 }); err == nil {
		t.Fatal("another start hash than the logged run's was accepted")
	}
	if err := d.Started(func() uint64 { t.Fatal("hashed twice"); return 0 }); err != nil {
		t.Fatalf("the second call: %v", err)
	}
}
