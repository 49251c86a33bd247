//go:build linux

package monitor

import (
	"testing"
	"time"
)

func TestTmpPhases(t *testing.T) {
	size := 2 * stencilN * stencilN * 8
	for _, mode := range []uffdMode{uffdModePlain, uffdModeAdaptive} {
		mem := mapArena(t, size)
		tr := newOrSkip(t, BackendUffd, mem)
		tr.(*uffdTracker).mode = mode
		b := &testing.B{}
		s := newStencilNode(b, tr, mem, false)
		var tStart, tStop, tComp time.Duration
		const n = stencilN
		for i := range 80 {
			t0 := time.Now()
			tr.Start(len(mem))
			t1 := time.Now()
			stencilRows(s.u, s.v, n, 0, n/2)
			t2 := time.Now()
			tr.Stop()
			t3 := time.Now()
			s.u, s.v = s.v, s.u
			if i >= 40 {
				tStart += t1.Sub(t0)
				tComp += t2.Sub(t1)
				tStop += t3.Sub(t2)
			}
		}
		u := tr.(*uffdTracker)
		t.Logf("mode %v kind %v: start %v compute %v stop %v per region; cmp %v ns/page copy %v", mode, u.kind, tStart/40, tComp/40, tStop/40, u.costs.cmpNS.median(), u.costs.copyNS.median())
	}
}
