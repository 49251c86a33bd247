package bench

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strconv"
	"strings"
)

// point is one measured or predicted value; lo and hi are its spread
// (equal to y when there is none).
type point struct{ x, y, lo, hi float64 }

type series struct {
	name   string
	color  string
	dashed bool // a model prediction
	points []point
}

type chart struct {
	title, xlabel, ylabel string
	log2x                 bool
	series                []series
	note                  string
}

// xvalues returns the distinct x values of the chart's points, sorted.
func (c *chart) xvalues() []float64 {
	var xs []float64
	for _, s := range c.series {
		for _, p := range s.points {
			xs = append(xs, p.x)
		}
	}
	slices.Sort(xs)
	return slices.Compact(xs)
}

// modelNote sets the chart's note: measured says what the points are,
// model what the dashed lines are when the chart has any, and why it has
// none otherwise.
func (c *chart) modelNote(measured, model string, md *model) {
	for _, s := range c.series {
		if s.dashed && len(s.points) > 0 {
			c.note = measured + "; dashed: " + model
			return
		}
	}
	why := "the model is not fitted"
	if len(md.notes) > 0 && md.a == 0 {
		why += " (" + md.notes[0] + ")"
	}
	c.note = measured + "; no model line: " + why
}

var modeColor = map[Mode]string{
	Seq: "#555555", Goroutines: "#8c564b", OMPC: "#e377c2", Complete: "#d62728",
	Incremental: "#1f77b4", MPIGo: "#2ca02c", MPIGoGather: "#98df8a", MPIC: "#ff7f0e",
}

// svg renders the chart as a standalone SVG document.
func (c *chart) svg() string {
	const W, H = 720.0, 460.0
	const L, R, T, B = 80.0, 190.0, 50.0, 60.0
	xmin, xmax, ymax := math.Inf(1), math.Inf(-1), 0.0
	for _, s := range c.series {
		for _, p := range s.points {
			xmin, xmax = math.Min(xmin, p.x), math.Max(xmax, p.x)
			ymax = math.Max(ymax, math.Max(p.y, p.hi))
		}
	}
	if math.IsInf(xmin, 0) {
		xmin, xmax, ymax = 0, 1, 1
	}
	if xmax == xmin {
		xmax = xmin + 1
	}
	ymax = niceCeil(ymax * 1.05)
	tx := func(x float64) float64 {
		if c.log2x {
			return L + (math.Log2(x)-math.Log2(xmin))/(math.Log2(xmax)-math.Log2(xmin))*(W-L-R)
		}
		return L + (x-xmin)/(xmax-xmin)*(W-L-R)
	}
	ty := func(y float64) float64 { return H - B - y/ymax*(H-T-B) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="sans-serif" font-size="12">`+"\n", W, H, W, H)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%g" y="24" font-size="15" font-weight="bold">%s</text>`+"\n", L, esc(c.title))
	// Axes and grid.
	var yt []float64
	for i := 0; i <= 5; i++ {
		yt = append(yt, ymax*float64(i)/5)
	}
	ylabels := tickLabels(yt)
	for i, y := range yt {
		fmt.Fprintf(&b, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="#e0e0e0"/>`, L, ty(y), W-R, ty(y))
		fmt.Fprintf(&b, `<text x="%g" y="%.1f" text-anchor="end">%s</text>`+"\n", L-6, ty(y)+4, ylabels[i])
	}
	xt := xticks(xmin, xmax, c.log2x, c.xvalues())
	for i, l := range tickLabels(xt) {
		x := xt[i]
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%g" x2="%.1f" y2="%g" stroke="#e0e0e0"/>`, tx(x), T, tx(x), H-B)
		fmt.Fprintf(&b, `<text x="%.1f" y="%g" text-anchor="middle">%s</text>`+"\n", tx(x), H-B+16, l)
	}
	fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="black"/><line x1="%g" y1="%g" x2="%g" y2="%g" stroke="black"/>`+"\n", L, H-B, W-R, H-B, L, T, L, H-B)
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle">%s</text>`+"\n", (L+W-R)/2, H-B+40, esc(c.xlabel))
	fmt.Fprintf(&b, `<text transform="translate(20 %g) rotate(-90)" text-anchor="middle">%s</text>`+"\n", (T+H-B)/2, esc(c.ylabel))
	// Series.
	ly := T
	dashed := 0
	for _, s := range c.series {
		if len(s.points) == 0 {
			continue
		}
		dash := ""
		if s.dashed {
			// Alternate the phase so that two model lines that coincide
			// (incremental and mpi-go when the merge costs nothing) both show.
			dash = fmt.Sprintf(` stroke-dasharray="6 6" stroke-dashoffset="%d"`, 6*(dashed%2))
			dashed++
		}
		var path []string
		for _, p := range s.points {
			path = append(path, fmt.Sprintf("%.1f,%.1f", tx(p.x), ty(p.y)))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"><title>%s</title></polyline>`+"\n", s.color, dash, strings.Join(path, " "), esc(s.name))
		if !s.dashed {
			for _, p := range s.points {
				if p.hi > p.lo {
					fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`, tx(p.x), ty(p.lo), tx(p.x), ty(p.hi), s.color)
				}
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"><title>%s: %s at %s</title></circle>`+"\n", tx(p.x), ty(p.y), s.color, esc(s.name), fmtNum(p.y), tickLabels([]float64{p.x})[0])
			}
		}
		fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="2"%s/>`, W-R+12, ly+4, W-R+36, ly+4, s.color, dash)
		fmt.Fprintf(&b, `<text x="%g" y="%g">%s</text>`+"\n", W-R+42, ly+8, esc(s.name))
		ly += 18
	}
	if c.note != "" {
		fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="10" fill="#555">%s</text>`+"\n", L, H-8, esc(c.note))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func esc(s string) string { return html.EscapeString(s) }

func fmtNum(v float64) string {
	switch {
	case v == 0:
		return "0"
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.1f", v)
	case math.Abs(v) >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// tickLabels formats the ticks of one axis with the fewest decimals (up to
// 4) that tell them apart exactly: node counts and sizes print as integers
// ("2", "1024"), 0.3-steps as "0.3", "0.6".
func tickLabels(v []float64) []string {
	d := 0
	for ; d < 4; d++ {
		exact := true
		for _, x := range v {
			if r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', d, 64), 64); math.Abs(r-x) > 1e-9*math.Max(1, math.Abs(x)) {
				exact = false
				break
			}
		}
		if exact {
			break
		}
	}
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = strconv.FormatFloat(x, 'f', d, 64)
		if x == 0 {
			out[i] = "0"
		}
	}
	return out
}

func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// xticks returns the x axis's ticks: powers of two on a log2 axis, the
// values themselves when there are few (the measured sizes), round steps
// otherwise.
func xticks(lo, hi float64, log2 bool, xs []float64) []float64 {
	var out []float64
	if !log2 && len(xs) > 0 && len(xs) <= 8 {
		return xs
	}
	if log2 {
		for x := math.Pow(2, math.Floor(math.Log2(lo))); x <= hi*1.0001; x *= 2 {
			if x >= lo*0.9999 {
				out = append(out, x)
			}
		}
		return out
	}
	step := niceCeil((hi - lo) / 6)
	for x := math.Ceil(lo/step) * step; x <= hi*1.0001; x += step {
		out = append(out, x)
	}
	return out
}
