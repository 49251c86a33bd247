package main

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cape-go/cape/internal/ckptlog"
)

// tamperImage rewrites the image of the log in dir with edit applied to
// its variables' bytes, sealing the frame again as whoever can write the
// log could.
func tamperImage(t *testing.T, dir string, edit func(vars []byte)) {
	t.Helper()
	d, err := ckptlog.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.Scan(1 << 30)
	if err != nil || len(s.Entries) == 0 || s.Entries[0].Kind != ckptlog.KindImage {
		t.Fatalf("the log holds no image: %+v, %v", s, err)
	}
	name := filepath.Join(dir, ckptlog.LogName)
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	e := s.Entries[0]
	im, err := ckptlog.ParseImage(b[e.Off : e.Off+e.Len])
	if err != nil {
		t.Fatal(err)
	}
	edit(im.Vars)
	out := append([]byte(nil), b[:e.Off-ckptlog.FrameHead]...)
	out = d.AppendFrame(out, ckptlog.KindImage, ckptlog.AppendImage(nil, im))
	out = append(out, b[e.Off+e.Len:]...)
	if err := os.WriteFile(name, out, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestRestartRefusesTamperedImage alters the image of a compacted log (the
// stencil's point names it, u and v: an int and two slice headers) as
// someone who can write the log and its key could: u's data pointer moved
// outside the arena, or its capacity past its allocation. The restart must
// refuse it naming the variable, before restoring anything (today's code
// wrote the grid there: a crash, or a wrong answer with exit 0).
func TestRestartRefusesTamperedImage(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	bin := sharedBuild(t, "../../examples/stencil")
	args := []string{"-n", "64", "-iters", "300"}
	flags := []string{"--stats", "--checkpoint-max", "256K"}
	ck := filepath.Join(t.TempDir(), "ck")
	if _, errText, err := capeRun("2", append(flags, "--checkpoint", ck), bin, args); err != nil {
		t.Fatalf("checkpointed run: %v\n%s", err, errText)
	}
	le := binary.LittleEndian
	for _, c := range []struct {
		name string
		edit func(vars []byte)
		want string
	}{
		{"pointer outside the arena", func(v []byte) { le.PutUint64(v[8:], 0x10000) }, "points outside the CAPE arena"},
		{"capacity past the allocation", func(v []byte) {
			le.PutUint64(v[16:], le.Uint64(v[16:])+8) // len: into v's elements
			le.PutUint64(v[24:], le.Uint64(v[24:])+8) // cap
		}, "points past the arena allocation that holds it"},
		{"length over capacity", func(v []byte) { le.PutUint64(v[16:], le.Uint64(v[24:])+1) }, "over its capacity"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copyDir(t, ck)
			tamperImage(t, dir, c.edit)
			out, errText, err := capeRun("2", []string{"--checkpoint", dir, "--restart"}, bin, args)
			if err == nil || !strings.Contains(errText, "restart: point main.go:48:3: variable 2 ([]float64): the image's") || !strings.Contains(errText, c.want) {
				t.Fatalf("a tampered image was not refused: %v\nstdout:\n%s\nstderr:\n%s", err, out, errText)
			}
			if strings.Contains(out, "n=64") {
				t.Fatalf("the job printed a result from a tampered image:\n%s", out)
			}
		})
	}
}

// TestRestartRefusesAlteredLog flips one byte of a region record's delta and
// recomputes the frame's CRC-32C, as someone who can write the log but has
// not its key (DIR/cape.key) could: the restart refuses the log, naming the
// MAC, instead of replaying a forged region (or taking it for a torn tail).
func TestRestartRefusesAlteredLog(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	bin, args, ck, s, name, b := ckptloopLog(t, "2")
	e := s.Entries[3] // region #4
	b[e.Off+e.Len-1] ^= 1
	head := b[e.Off-ckptlog.FrameHead : e.Off]
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	sum := crc32.Update(0, castagnoli, head[:16])
	sum = crc32.Update(sum, castagnoli, head[20:])
	sum = crc32.Update(sum, castagnoli, b[e.Off:e.Off+e.Len])
	binary.LittleEndian.PutUint32(head[16:], sum)
	if err := os.WriteFile(name, b, 0o600); err != nil {
		t.Fatal(err)
	}
	out, errText, err := capeRun("2", []string{"--checkpoint", ck, "--restart"}, bin, args)
	if err == nil || !strings.Contains(errText, "checkpoint log altered: a frame's checksum matches but its MAC does not") {
		t.Fatalf("a forged record was not refused: %v\nstdout:\n%s\nstderr:\n%s", err, out, errText)
	}
}
