package homes

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cape-go/cape/cape/internal/wire"
	"github.com/cape-go/cape/delta"
)

func TestPageRanges(t *testing.T) {
	got := AppendPageRanges(nil, []int{0, 1, 2, 3, 4, 18})
	want := []wire.PageRange{{Lo: 0, Hi: 5}, {Lo: 18, Hi: 19}}
	if !slices.Equal(got, want) {
		t.Fatalf("AppendPageRanges = %v, want %v", got, want)
	}
	hl := []wire.Home{{PageRange: wire.PageRange{Lo: 2, Hi: 4}, Holder: 1}, {PageRange: wire.PageRange{Lo: 6, Hi: 7}, Holder: 2, Multi: true}}
	for p := range 9 {
		h, ok := Find(hl, p)
		want := (p >= 2 && p < 4 && h.Holder == 1) || (p == 6 && h.Holder == 2 && h.Multi)
		if ok != want || ok != (p == 2 || p == 3 || p == 6) {
			t.Errorf("Find(%d) = %+v, %v", p, h, ok)
		}
	}
	if r := AppendPageRanges(nil, []int{1, 2, 3, 7, 9, 10}); !slices.Equal(r, []wire.PageRange{{Lo: 1, Hi: 4}, {Lo: 7, Hi: 8}, {Lo: 9, Hi: 11}}) {
		t.Fatalf("AppendPageRanges = %v", r)
	}
	for p := range 20 {
		if Contains(got, p) != (p < 5 || p == 18) {
			t.Errorf("Contains(%d) = %v", p, Contains(got, p))
		}
	}
}

// TestDecideModel checks Decide against a page-by-page model on random
// writes of up to 5 ranks.
func TestDecideModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 2000 {
		const pages = 40
		ranks := 1 + rng.IntN(5)
		wrote := make([][]bool, ranks)
		written := make([][]wire.PageRange, ranks)
		for r := range wrote {
			wrote[r] = make([]bool, pages)
			for p := range pages {
				wrote[r][p] = rng.IntN(3) == 0
			}
			for p := 0; p < pages; p++ {
				if !wrote[r][p] {
					continue
				}
				q := p
				for q < pages && wrote[r][q] {
					q++
				}
				written[r] = append(written[r], wire.PageRange{Lo: p, Hi: q})
				p = q
			}
		}
		homes := Decide(nil, written)
		for p := range pages {
			var ws []int
			for r := range ranks {
				if wrote[r][p] {
					ws = append(ws, r)
				}
			}
			i := slices.IndexFunc(homes, func(h wire.Home) bool { return h.Lo <= p && p < h.Hi })
			if len(ws) == 0 {
				if i >= 0 {
					t.Fatalf("iter %d: page %d written by none has home %+v", iter, p, homes[i])
				}
				continue
			}
			holder := ws[0]
			if len(ws) > 1 {
				holder = 0
			}
			if i < 0 || homes[i].Holder != holder || homes[i].Multi != (len(ws) > 1) {
				t.Fatalf("iter %d: page %d written by %v: homes %+v", iter, p, ws, homes)
			}
		}
		for i := 1; i < len(homes); i++ {
			if homes[i].Lo < homes[i-1].Hi {
				t.Fatalf("iter %d: homes overlap: %+v", iter, homes)
			}
		}
	}
}

func TestRestrict(t *testing.T) {
	data := bytes.Repeat([]byte{7}, 40)
	var d delta.Delta
	Restrict(&d, []delta.Run{{Off: 10, Data: data}, {Off: 60, Data: []byte{1}}}, []int{1, 3}, 16)
	want := []delta.Run{{Off: 16, Data: data[6:22]}, {Off: 48, Data: data[38:40]}, {Off: 60, Data: []byte{1}}}
	if len(d.Runs) != len(want) {
		t.Fatalf("Restrict: %v", d.Runs)
	}
	for i, r := range d.Runs {
		if r.Off != want[i].Off || !bytes.Equal(r.Data, want[i].Data) {
			t.Fatalf("run %d: %d+%d, want %d+%d", i, r.Off, len(r.Data), want[i].Off, len(want[i].Data))
		}
	}
	if m := AppendMulti(nil, []wire.Home{{PageRange: wire.PageRange{Lo: 2, Hi: 4}, Multi: true}, {PageRange: wire.PageRange{Lo: 5, Hi: 6}}}); !slices.Equal(m, []int{2, 3}) {
		t.Fatalf("AppendMulti = %v", m)
	}
}

// TestAtMaster checks that AtMaster makes exactly the pages named (those
// some home covers) Multi at the master, keeping every other page's home.
func TestAtMaster(t *testing.T) {
	hl := []wire.Home{{PageRange: wire.PageRange{Lo: 2, Hi: 6}, Holder: 1}, {PageRange: wire.PageRange{Lo: 6, Hi: 8}, Holder: 0, Multi: true},
		{PageRange: wire.PageRange{Lo: 9, Hi: 10}, Holder: 2}}
	got := AtMaster(hl, []int{0, 2, 4, 7, 9, 11})
	want := []wire.Home{{PageRange: wire.PageRange{Lo: 2, Hi: 3}, Holder: 0, Multi: true}, {PageRange: wire.PageRange{Lo: 3, Hi: 4}, Holder: 1},
		{PageRange: wire.PageRange{Lo: 4, Hi: 5}, Holder: 0, Multi: true}, {PageRange: wire.PageRange{Lo: 5, Hi: 6}, Holder: 1},
		{PageRange: wire.PageRange{Lo: 6, Hi: 8}, Holder: 0, Multi: true}, {PageRange: wire.PageRange{Lo: 9, Hi: 10}, Holder: 0, Multi: true}}
	if !slices.Equal(got, want) {
		t.Fatalf("AtMaster = %+v\nwant %+v", got, want)
	}
	if got := AtMaster(hl, nil); !slices.Equal(got, hl) {
		t.Fatalf("AtMaster with no pages = %+v", got)
	}
}
