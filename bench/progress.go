package bench

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// progress draws a one-line progress bar with an estimated time left; the
// estimate weighs every cell by its expected cost (n³ / nodes).
type progress struct {
	w            io.Writer
	total, sofar float64
	began        time.Time
	label        string
	last         string
}

func newProgress(w io.Writer, total float64) *progress {
	return &progress{w: w, total: total, began: time.Now()}
}

func (p *progress) start(label string) {
	p.label = label
	p.draw()
}

func (p *progress) done(cost, seconds float64) {
	p.sofar += cost
	p.last = fmt.Sprintf("%.3fs", seconds)
	p.draw()
}

func (p *progress) draw() {
	if p.w == nil || p.total <= 0 {
		return
	}
	const width = 30
	frac := min(1, p.sofar/p.total)
	fill := int(frac * width)
	eta := "?"
	if p.sofar > 0 {
		left := time.Duration(float64(time.Since(p.began)) * (p.total - p.sofar) / p.sofar)
		eta = left.Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "\r\033[K[%s%s] %3.0f%% ETA %s  %s (last %s)", strings.Repeat("#", fill), strings.Repeat(".", width-fill), 100*frac, eta, p.label, p.last)
}

func (p *progress) finish() {
	if p.w == nil {
		return
	}
	fmt.Fprintf(p.w, "\r\033[Kbench: %d%% done in %s\n", int(100*min(1, p.sofar/p.total)), time.Since(p.began).Round(time.Second))
}
