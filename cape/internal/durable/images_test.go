package durable

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cape-go/cape/internal/ckptlog"
)

// TestImagesOnly checks an images-only log: an image at every point when
// asked (SetImagesOnly with a negative time), which replaces the one
// before; none before the time between images has passed; a joining node
// refused; and the notice of a log that ends without an image.
func TestImagesOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ck")
	d, ns := openLog(t, Config{Dir: dir})
	if d.ImagesOnly() || d.ImageDue() {
		t.Fatal("a new log is images-only before SetImagesOnly")
	}
	if every := d.SetImagesOnly(-1); every != 0 || !d.ImagesOnly() {
		t.Fatalf("SetImagesOnly(-1): every %v, images-only %v", every, d.ImagesOnly())
	}
	a := &fakeArena{mem: make([]byte, 4*testPage), used: 2 * testPage, state: []byte("alloc")}
	for seq := uint64(1); seq <= 3; seq++ {
		a.mem[seq] = byte(seq)
		d.SawPoint()
		d.Point("main.go:9:2", seq, a, [][]byte{{byte(seq)}}) // not due: no image
		if !d.ImageDue() {
			t.Fatalf("point after region %d: no image due with an image at every point", seq)
		}
		d.Point("main.go:9:2", seq, a, [][]byte{{byte(seq)}})
	}
	if why := d.JoinRefusal(); !strings.Contains(why, "holds images") {
		t.Fatalf("join refusal: %q", why)
	}
	if st := closeLog(t, d); st.Compactions != 3 || len(*ns) != 0 {
		t.Fatalf("stats %+v, notices %q", st, *ns)
	}
	s := scanLog(t, dir)
	if len(s.Entries) != 1 || s.Entries[0].Kind != ckptlog.KindImage || s.Last() != 3 {
		t.Fatalf("the log holds %+v, want the image after region 3 alone", s.Entries)
	}

	d, ns = openLog(t, Config{Dir: filepath.Join(t.TempDir(), "ck")})
	if every := d.SetImagesOnly(0); every != DefaultEvery {
		t.Fatalf("SetImagesOnly(0): every %v, want %v", every, DefaultEvery)
	}
	d.SawPoint()
	if d.ImageDue() {
		t.Fatal("an image due at once, before DefaultEvery")
	}
	closeLog(t, d)
	if !ns.has("the log holds no image (no point was reached 1m0s after the job's start)") {
		t.Fatalf("notices %q", *ns)
	}
}

// TestImageCost checks that images are spaced by ImageCostFactor times the
// last one's cost when that is longer than the time asked for.
func TestImageCost(t *testing.T) {
	d, _ := openLog(t, Config{Dir: filepath.Join(t.TempDir(), "ck")})
	defer closeLog(t, d)
	d.SetImagesOnly(time.Millisecond)
	d.images.last = time.Now().Add(-time.Second)
	if !d.ImageDue() {
		t.Fatal("no image due a second after the last, every millisecond asked")
	}
	d.images.began = time.Now().Add(-200 * time.Millisecond) // an image that cost 200 ms
	d.Point("p", 1, &fakeArena{mem: make([]byte, testPage), used: testPage}, nil)
	if d.images.cost < 200*time.Millisecond || d.ImageDue() {
		t.Fatalf("cost %v; an image due right after one that cost it", d.images.cost)
	}
	d.images.last = time.Now().Add(-2100 * time.Millisecond)
	if !d.ImageDue() {
		t.Fatal("no image due 10.5 times the last image's cost after it")
	}
}

// scanLog scans the log in dir.
func scanLog(t *testing.T, dir string) *ckptlog.Scan {
	t.Helper()
	cd, err := ckptlog.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := cd.Scan(RecordLimit(int(testHeader.ArenaSize)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
