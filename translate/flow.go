package translate

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strings"
)

// Loop-carried flow dependences through a shared array: an iteration that
// reads an element an earlier iteration writes (a[i] = (a[i-1] + a[i+1]) /
// 2, in place; a[i] += a[i-1]). Sequentially it reads the new value; on
// CAPE's nodes, the first iteration of a node's block reads the value
// before the region, which the node before wrote. Where the written and
// read indices of one array's first dimension are polynomials in the loop
// variable, variables the loop does not assign and counters of inner loops
// with such bounds (flowform.go), the translator tells: iteration i reads
// a[R(i)] and iteration i' writes a[W(i')], the same element for every
// value of the other variables when i' = i + d (flowDistance; for a[i+r]
// and a[i'+w], d = r - w), an earlier iteration (of the same stride) when
// d is a negative multiple of the step (positive, for a loop that counts
// down). A slice sub-sliced from the array (d := a[1:]) is the array with
// an offset. Two indices that differ by variables (a[i+off] and a[i]) are
// refused unless the difference is at least the loop's span
// (unknownOffset), and a read around a ring (a[(i+1)%n] for i from 0 to
// n) of an array written at a[i] is refused (wrappedDependence). Indices
// of other forms are not judged (--verify catches what is left).

// flowDependences refuses the reads, in r's loop body, of elements of a
// shared array that an earlier iteration writes.
func (t *translator) flowDependences(r *region) {
	l := r.loop
	if l == nil || l.v == nil {
		return
	}
	step := int64(1)
	if l.step != nil {
		tv, ok := t.info.Types[l.step]
		if !ok || tv.Value == nil {
			return
		}
		s, exact := constant.Int64Val(constant.ToInt(tv.Value))
		if !exact || s == 0 {
			return
		}
		step = max(s, -s)
	}
	fc := t.formsOf(r)
	sites := &flowSites{writes: map[string][]flowPlace{}, reads: map[string][]flowPlace{}, wrapped: map[string][]wrappedRead{}}
	fc.collect(r.body, nil, sites, 0)
	fc.rangeValue(sites)
	if fc.invariantFlow(sites) {
		return
	}
	trips, tripsKnown := fc.trips(step)
	// dependent: iteration i reads what iteration i+d writes, an
	// earlier one of the loop's stride that exists.
	dependent := func(d int64) bool {
		if tripsKnown && max(d, -d) >= trips*step {
			return false // no two iterations that far apart
		}
		if l.down {
			d = -d
		}
		return d < 0 && -d%step == 0
	}
	if w, rd := fc.fixedRead(sites, step); rd != nil {
		t.errorf(rd.at.Pos(), "%s in the parallel loop, and written by an earlier iteration (%s): a loop-carried dependence; on CAPE's nodes the iterations after it on other nodes would read the value from before the region; read a copy made before the loop, or run the loop sequentially", t.flowRead(*rd), t.flowSite(*w))
		return
	}
	if w, rd := fc.wrappedDependence(sites); rd != nil {
		t.errorf(rd.at.Pos(), "%s in the parallel loop, and written by an earlier iteration (%s): the index wraps around the loop's iterations, so the iterations that wrap read what the first ones write (a loop-carried dependence; on CAPE's nodes they would read the values from before the region); read from a copy of the array", t.flowRead(*rd), t.flowSite(*w))
		return
	}
	for k, ws := range sites.writes {
		for _, rd := range sites.reads[k] {
			for _, w := range ws {
				// The same values of the inner loops' counters on
				// both sides, then sample values of them.
				d, ok := flowDistance(w.form, rd.form)
				if !ok || !fc.sameCounters(w.form, rd.form, w.at, rd.at) || !fc.pathsMatch(w, rd, d) || !dependent(d) || !bothRun(w, rd, d, nil, nil) {
					off, known := "", fc.sampledDependence(w, rd, dependent)
					if !known {
						off, known = fc.unknownOffset(w, rd, dependent)
					}
					if known {
						// refused below
					} else if off != "" && !fc.listedShared(w, rd) {
						t.errorf(rd.at.Pos(), "%s in the parallel loop, and may be written by another iteration (%s): the distance between them, %s, is not a constant, so the translator cannot tell whether an earlier iteration writes what this one reads (a loop-carried dependence: on CAPE's nodes the first iteration of a node's share would read the value from before the region); read from a copy of the array, make the offset a constant, or, if it is never shorter than the loop, list the array in shared(...)", t.flowRead(rd), t.flowSite(w), off)
						return
					} else {
						continue
					}
				}
				t.errorf(rd.at.Pos(), "%s in the parallel loop, and written by an earlier iteration (%s): a loop-carried dependence; on CAPE's nodes the first iteration of a node's share would read the value from before the region; read from a copy of the array (two arrays, swapped after the loop), or run the loop sequentially", t.flowRead(rd), t.flowSite(w))
				return
			}
		}
	}
}

// fixedRead returns a write a[c·i + e] and a read a[x] of the loop's
// body, x the same in every iteration (a[0], a[k] for an inner counter k
// at its first values, a local assigned once), such that the iteration
// that writes element x is not the loop's last: the iterations after it
// read what it wrote (a[i] = a[0] + a[i] + 1 for i from 0). The loop's
// start must be known (a constant once locals have their values); its
// end is taken as far enough when it is not.
func (fc *formCtx) fixedRead(s *flowSites, step int64) (*flowPlace, *flowPlace) {
	lo, ok := fc.start()
	if !ok {
		return nil, nil
	}
	span, spanOK := fc.span()
	if spanOK {
		span = fc.expandLocals(span, 3)
	}
	ranges := fc.root.counterRanges()
	for k, ws := range s.writes {
		for _, w := range ws {
			c := w.form[loopKey]
			if c == 0 || len(w.path) > 0 || len(w.guards) > 0 || hasLoop(w.form.add(linForm{loopKey: c}, -1)) {
				continue
			}
			for _, rd := range s.reads[k] {
				if len(rd.path) > 0 || len(rd.guards) > 0 || hasLoop(rd.form) || fc.t.onceBlock(fc.r, rd.at) != nil {
					continue // a read of one iteration's (if i == 0 { ... })
				}
				if slices.ContainsFunc(ws, func(o flowPlace) bool { return len(o.form.add(rd.form, -1)) == 0 }) {
					continue // the place is written in place too: an update, judged as one
				}
				var keys []string
				for key := range ranges {
					if rd.mentions(key) {
						keys = append(keys, key)
					}
				}
				if len(keys) > 1 || len(keys) == 1 && w.mentions(keys[0]) {
					continue
				}
				for _, sub := range samples(keys, ranges, readSamples, false) {
					r2, ok := rd.substitute(sub)
					if !ok {
						continue
					}
					// c·iw + rest(w) = x: iw = (x − rest) / c.
					diff := fc.expandLocals(r2.form.add(w.form.add(linForm{loopKey: c}, -1), -1), 3)
					x, constant := diff[""]
					if len(diff) > 1 || len(diff) == 1 && !constant || x%c != 0 {
						continue
					}
					iw := x / c
					if fc.writerNotLast(iw, lo, step, span, spanOK) {
						return &w, &rd
					}
				}
			}
		}
	}
	return nil, nil
}

// start returns the loop's first value of the loop variable, a constant
// once locals assigned once have their values (0 for range loops); false
// where it is not one.
func (fc *formCtx) start() (int64, bool) {
	l := fc.r.loop
	if l.lo == nil {
		return 0, l.rangeX != nil
	}
	f, ok := fc.form(l.lo, 0)
	if !ok {
		return 0, false
	}
	f = fc.expandLocals(f, 3)
	c, constant := f[""]
	return c, len(f) == 0 || len(f) == 1 && constant
}

// writerNotLast reports whether iw is one of the loop's iterations (from
// lo by step, over span values of the loop variable) other than its last,
// counting down for a loop that does; a span not known is taken as
// reaching past iw.
func (fc *formCtx) writerNotLast(iw, lo, step int64, span linForm, spanOK bool) bool {
	off := iw - lo
	if fc.r.loop.down {
		off = lo - iw
	}
	if off < 0 || off%step != 0 {
		return false
	}
	if !spanOK {
		return true
	}
	n, constant := span[""]
	if len(span) > 1 || len(span) == 1 && !constant {
		return true
	}
	return off+step < n
}

// wrappedDependence returns a write a[i] and a read a[(i+c) % m] of the
// loop's body, for a loop over i from 0 up to m by 1 (for i := range m)
// and c not a multiple of m, once m is more than |c|: the iterations that
// wrap read what the first iterations wrote (c > 0), or every one but the
// first reads what the one before wrote (c < 0); nil if there is none.
func (fc *formCtx) wrappedDependence(s *flowSites) (*flowPlace, *flowPlace) {
	l := fc.r.loop
	span, ok := fc.span()
	if lo, known := fc.start(); !ok || !known || lo != 0 || l.down || l.step != nil || l.op == token.LEQ {
		return nil, nil
	}
	for k, rds := range s.wrapped {
		for _, rd := range rds {
			if diff := rd.m.add(span, -1); len(diff) > 0 {
				// Modulo something else than the loop's count: a
				// dependence where it is known to be less (n := 4000;
				// m := 1000: from i = m on, a[(i+c)%m] is an element an
				// earlier iteration wrote).
				if !fc.smallerModulus(rd, diff) {
					continue
				}
			} else {
				c := rd.place.form.add(linForm{loopKey: 1}, -1)
				if _, constant := c[""]; len(c) > 1 || len(c) == 1 && !constant {
					c = c.add(rd.m, -1) // (i + m + c) % m
				}
				if off, constant := c[""]; len(c) != 1 || !constant || off == 0 {
					continue
				}
			}
			if w := fc.wrappedWrite(k, s); w != nil && len(rd.place.guards) == 0 {
				return w, &rd.place
			}
		}
	}
	return nil, nil
}

// smallerModulus reports whether the modulus of the wrapped read rd is a
// constant less than the loop's count (diff, their difference, a negative
// constant once locals assigned once have their values) and the read's
// index is the loop variable plus a constant.
func (fc *formCtx) smallerModulus(rd wrappedRead, diff linForm) bool {
	diff = fc.expandLocals(diff, 4)
	if d, constant := diff[""]; len(diff) != 1 || !constant || d >= 0 {
		return false
	}
	c := rd.place.form.add(linForm{loopKey: 1}, -1)
	_, constant := c[""]
	return len(c) == 0 || len(c) == 1 && constant
}

// wrappedWrite returns the loop's write k[i] (unguarded, the loop variable
// itself as its index), or nil.
func (fc *formCtx) wrappedWrite(k string, s *flowSites) *flowPlace {
	for _, w := range s.writes[k] {
		if len(w.form) == 1 && w.form[loopKey] == 1 && len(w.path) == 0 && len(w.guards) == 0 {
			return &w
		}
	}
	return nil
}

// unknownOffset returns, where the read rd and the write w move alike
// with the loop variable (a[i+off] and a[i]) and differ by a sum of
// variables the loop does not assign (off), that difference as written in
// Go; "" where they differ otherwise, where the difference is at least
// the loop's span (hi[i] = lo[i] with hi := a[n:] for i < n: no two
// iterations that far apart). Locals assigned once are replaced by their
// values first (dst := n - src); where that leaves a constant, it reports
// whether the distance is a dependence.
func (fc *formCtx) unknownOffset(w, rd flowPlace, dependent func(int64) bool) (string, bool) {
	if len(w.path) > 0 || len(rd.path) > 0 || len(w.guards) > 0 || len(rd.guards) > 0 {
		return "", false
	}
	if differentScales(w.form, rd.form) {
		// a[i*stride+j] written, a[(i-1)*rowLen+j] read: two
		// variables the program may have made equal.
		return strings.ReplaceAll(fc.t.formText(rd.form.add(w.form, -1)), loopKey, fc.r.loop.name), false
	}
	c := w.form[loopKey]
	if c == 0 {
		return "", false
	}
	for m := range w.form {
		if _, inLoop := withoutLoop(m); inLoop && m != loopKey {
			return "", false // i·n as well: the distance is diff / (c + n), not a plain shift
		}
	}
	ranges := fc.root.counterRanges()
	for key := range ranges {
		if w.mentions(key) || rd.mentions(key) {
			return "", false // a counter's values differ on the two sides: sampledDependence's
		}
	}
	diff := fc.expandLocals(rd.form.add(w.form, -1), 3)
	symbolic := false
	for m := range diff {
		for _, key := range strings.Split(m, "*") {
			if key == loopKey || key != "" && !fc.invariantKey(key) {
				return "", false // moves differently with i, or with a counter
			}
			symbolic = symbolic || key != ""
		}
	}
	span, spanOK := fc.span()
	if !symbolic {
		// A constant once the locals have their values (off := 1):
		// iteration i reads what iteration i + k/c writes.
		k := diff[""]
		if k%c != 0 {
			return "", false
		}
		if spanOK {
			span := fc.expandLocals(span, 3)
			if n, constant := span[""]; len(span) == 1 && constant && max(k/c, -k/c) >= n {
				return "", false // no two iterations that far apart
			}
		}
		return "", dependent(k / c)
	}
	if spanOK {
		reach := span.add(nil, 0)
		for m, k := range span {
			reach[m] = k * max(c, -c)
		}
		for _, x := range []linForm{diff.add(reach, -1), linForm{}.add(diff, -1).add(reach, -1)} {
			if k, constant := x[""]; len(x) == 0 || len(x) == 1 && constant && k >= 0 {
				return "", false // |difference| ≥ span: never two iterations apart
			}
		}
	}
	return fc.t.formText(diff), false
}

// differentScales reports whether the forms w and rd both scale the loop
// variable by variables (i·stride, i·rowLen), not by the same ones: the
// translator cannot tell the scales apart, so neither whether the places
// meet.
func differentScales(w, rd linForm) bool {
	scales := func(f linForm) map[string]int64 {
		out := map[string]int64{}
		for m, c := range f {
			if rest, inLoop := withoutLoop(m); inLoop && rest != "" {
				out[rest] = c
			}
		}
		return out
	}
	sw, sr := scales(w), scales(rd)
	return len(sw) > 0 && len(sr) > 0 && !maps.Equal(sw, sr)
}

// listedShared reports whether the shared clause lists the variable the
// write w or the read rd is an element of: the user says the iterations'
// places differ.
func (fc *formCtx) listedShared(w, rd flowPlace) bool {
	for _, p := range []flowPlace{w, rd} {
		if v := fc.t.rootVar(p.ix); v != nil && fc.r.shared[v] {
			return true
		}
	}
	return false
}

// expandLocals returns f with each variable of degree one that is a local
// of the region's function, assigned once (dst := n - src), replaced by the
// form of its value, depth times at most.
func (fc *formCtx) expandLocals(f linForm, depth int) linForm {
	for range depth {
		changed := false
		for m, c := range f {
			if strings.Contains(m, "*") || m == "" || m == loopKey {
				continue
			}
			v := fc.symbolVar(m)
			if v == nil || fc.r.fn == nil || !within(v.Pos(), fc.r.fn) || len(fc.t.facts.sources[v]) != 1 {
				continue
			}
			src := fc.t.facts.sources[v][0]
			if src.expr == nil {
				continue
			}
			val, ok := fc.form(src.expr, 1)
			if !ok || val.mentions(m) || !fc.assignedOnce(val) {
				continue // its variables may have changed since
			}
			f = f.add(linForm{m: c}, -1).add(val, c)
			changed = true
			break // f changed: range it again
		}
		if !changed {
			break
		}
	}
	return f
}

// assignedOnce reports whether every variable of f is assigned once (at
// its declaration) or never: f's value where a variable was defined from
// it is its value at the region.
func (fc *formCtx) assignedOnce(f linForm) bool {
	for m := range f {
		for _, key := range strings.Split(m, "*") {
			if key == "" {
				continue
			}
			v := fc.symbolVar(key)
			if v == nil || len(fc.t.facts.sources[v]) > 1 {
				return false
			}
		}
	}
	return true
}

// symbolVar returns the variable whose symbol has the key key in the
// forms made so far (symbol); nil if none.
func (fc *formCtx) symbolVar(key string) *types.Var { return fc.root.syms[key] }

// mentions reports whether a monomial of f has the variable key.
func (f linForm) mentions(key string) bool {
	for m := range f {
		if slices.Contains(strings.Split(m, "*"), key) {
			return true
		}
	}
	return false
}

// span returns the loop's hi − lo (lo − hi counting down), plus one for
// <= and >=, as a form; false where it has none.
func (fc *formCtx) span() (linForm, bool) {
	l := fc.r.loop
	var lo, hi linForm
	var ok1, ok2 bool
	switch {
	case l.lo != nil && l.hi != nil:
		lo, ok1 = fc.form(l.lo, 0)
		hi, ok2 = fc.form(l.hi, 0)
	case l.rangeX != nil && l.rangeInt:
		lo, ok1 = linForm{}, true
		hi, ok2 = fc.form(l.rangeX, 0)
	}
	if !ok1 || !ok2 {
		return nil, false
	}
	span := hi.add(lo, -1)
	if l.down {
		span = lo.add(hi, -1)
	}
	if l.op == token.LEQ || l.op == token.GEQ {
		span = span.add(linForm{"": 1}, 1)
	}
	return span, true
}

// maxSample is how many values of a counter of the write's inner loop
// sampledDependence tries, past its first; readSamples how many of the
// read's.
const (
	maxSample   = 4
	readSamples = 1
)

// sampledDependence looks for a dependence of rd on w where the counters
// of inner loops take values of their own on each side: the read's at
// their first readSamples+1 values (s += a[i-d] for d from 1: a[i-1];
// u[(i-1)*n+j-1] read at j = 2 is written at j = 1), the write's at their
// first maxSample+1 values (u[i*8+j] written at j = 1 is u[(i-1)*8+j+1]
// read at j = 0). A counter takes a value past its first where its count
// is at least that many, or not known (a bound such as n: the dependence
// exists once n is large enough). It reports whether one is dependent.
func (fc *formCtx) sampledDependence(w, rd flowPlace, dependent func(int64) bool) bool {
	ranges := fc.root.counterRanges()
	var wkeys, rkeys []string
	for key := range ranges {
		if w.mentions(key) {
			wkeys = append(wkeys, key)
		}
		if rd.mentions(key) {
			rkeys = append(rkeys, key)
		}
	}
	if len(wkeys) == 0 && len(rkeys) == 0 || len(wkeys) > 2 || len(rkeys) > 2 {
		return false
	}
	slices.Sort(wkeys)
	slices.Sort(rkeys)
	for _, rsub := range samples(rkeys, ranges, readSamples, true) {
		r2, ok := rd.substitute(rsub)
		if !ok {
			continue
		}
		for _, wsub := range samples(wkeys, ranges, maxSample, true) {
			w2, ok := w.substitute(wsub)
			if !ok {
				continue
			}
			if d, ok := flowDistance(w2.form, r2.form); ok && fc.pathsMatch(w2, r2, d) && dependent(d) && bothRun(w, rd, d, wsub, rsub) {
				return true
			}
		}
	}
	return false
}

// samples returns every assignment to the counters keys of one of their
// first extra+1 values that each may take (counterRange.count).
func samples(keys []string, ranges map[string]counterRange, extra int64, ends bool) []map[string]linForm {
	out := []map[string]linForm{{}}
	for _, key := range keys {
		cr := ranges[key]
		var next []map[string]linForm
		for _, sub := range out {
			for t := range extra + 1 {
				if t > 0 && cr.count >= 0 && t >= cr.count {
					break // a value it does not take
				}
				m := maps.Clone(sub)
				m[key] = cr.lo.add(linForm{"": t * cr.step}, 1)
				next = append(next, m)
			}
			// And its last values: a block's last element is what the
			// next block's first reads.
			for t := range extra + 1 {
				if !ends || cr.last == nil || cr.count >= 0 && t+extra+1 >= cr.count {
					break // none known, or sampled from the start already
				}
				m := maps.Clone(sub)
				m[key] = cr.last.add(linForm{"": -t * cr.step}, 1)
				next = append(next, m)
			}
		}
		out = next
	}
	return out
}

// bothRun reports whether the write w in iteration i+d and the read rd in
// iteration i can both run under the guards they share (modGuard), with
// wsub and rsub for the counters on each side: their guarded values must
// agree modulo m. A difference the translator cannot reduce to a constant
// is taken as never agreeing (no refusal).
func bothRun(w, rd flowPlace, d int64, wsub, rsub map[string]linForm) bool {
	for _, gw := range w.guards {
		for _, gr := range rd.guards {
			if gw.cond != gr.cond {
				continue
			}
			xw, xr := gw.x, gr.x
			var ok1, ok2 bool = true, true
			for key, val := range wsub {
				if xw, ok1 = substituteForm(xw, key, val); !ok1 {
					break
				}
			}
			for key, val := range rsub {
				if xr, ok2 = substituteForm(xr, key, val); !ok2 {
					break
				}
			}
			diff := shifted(xw, d).add(xr, -1)
			c, constant := diff[""]
			if !ok1 || !ok2 || len(diff) > 1 || len(diff) == 1 && !constant || c%gw.m != 0 {
				return false
			}
		}
	}
	return true
}

// mentions reports whether p's index or path mentions the variable key.
func (p flowPlace) mentions(key string) bool {
	forms := []linForm{p.form}
	for _, st := range p.path {
		forms = append(forms, st.form)
	}
	for _, f := range forms {
		for m := range f {
			if slices.Contains(strings.Split(m, "*"), key) {
				return true
			}
		}
	}
	return false
}

// substitute returns p with the forms vals for the variables they name,
// or false where the loop variable would appear squared.
func (p flowPlace) substitute(vals map[string]linForm) (flowPlace, bool) {
	ok := true
	sub := func(f linForm) linForm {
		if f == nil {
			return nil
		}
		for key, val := range vals {
			var good bool
			f, good = substituteForm(f, key, val)
			ok = ok && good
		}
		return f
	}
	out := p
	out.form = sub(p.form)
	out.path = make([]pathStep, len(p.path))
	for k, st := range p.path {
		out.path[k] = pathStep{field: st.field, form: sub(st.form)}
	}
	return out, ok
}

// substituteForm returns f with val for the variable key.
func substituteForm(f linForm, key string, val linForm) (linForm, bool) {
	out := linForm{}
	for m, c := range f {
		vs := []string{}
		if m != "" {
			vs = strings.Split(m, "*")
		}
		k := slices.Index(vs, key)
		if k < 0 {
			out[m] += c
			continue
		}
		prod, ok := linForm{strings.Join(slices.Delete(vs, k, k+1), "*"): c}.mul(val)
		if !ok {
			return nil, false
		}
		out = out.add(prod, 1)
	}
	return out.add(nil, 0), true
}

// invariantFlow refuses a read of an element that the loop writes at the
// same place in every iteration, or in one (if i == 0 { a[0] = 5 }), where
// the read may see another iteration's write: a read placed before the
// write, or outside the one iteration's block when a later iteration
// exists. It reports whether it refused one.
func (fc *formCtx) invariantFlow(s *flowSites) bool {
	t, l := fc.t, fc.r.loop
	for k, ws := range s.writes {
		for _, w := range ws {
			if hasLoop(w.form) || fc.movingCounter(w.form) || len(w.guards) > 0 || slices.ContainsFunc(w.path, func(p pathStep) bool { return p.field == "" && (p.form == nil || hasLoop(p.form)) }) {
				continue
			}
			once := fc.t.onceBlock(fc.r, w.at)
			for _, rd := range s.reads[k] {
				if len(rd.guards) > 0 || len(rd.form.add(w.form, -1)) != 0 || !fc.pathsMatch(w, rd, 0) {
					continue
				}
				var seen bool
				switch {
				case once != nil:
					seen = !within(rd.at.Pos(), once) && !fc.lastIteration(once) && !l.down
				default:
					seen = rd.at.Pos() < w.at.Pos() && !within(w.at.Pos(), rd.at)
				}
				if seen {
					t.errorf(rd.at.Pos(), "%s in the parallel loop, and written by another iteration (%s): a loop-carried dependence; on CAPE's nodes an iteration would read the value from before the region; compute it before the loop, or run the loop sequentially", t.flowRead(rd), t.flowSite(w))
					return true
				}
			}
		}
	}
	return false
}

// movingCounter reports whether f mentions the counter of an inner loop
// whose range moves with the loop variable (for k := b*bs; k < b*bs+bs;
// k++): its elements are not at the same place in every iteration.
func (fc *formCtx) movingCounter(f linForm) bool {
	for key, cr := range fc.root.counterRanges() {
		if hasLoop(cr.lo) && f.mentions(key) {
			return true
		}
	}
	return false
}

// hasLoop reports whether f has a term in the loop variable.
func hasLoop(f linForm) bool {
	for m := range f {
		if _, in := withoutLoop(m); in {
			return true
		}
	}
	return false
}

// lastIteration reports whether block, the body of an if requiring the
// loop variable equal to k (onceBlock), runs in the loop's last
// iteration: k is hi-1 for i < hi, hi for i <= hi, with step 1.
func (fc *formCtx) lastIteration(block *ast.BlockStmt) bool {
	l := fc.r.loop
	ifs, ok := fc.t.parent[block].(*ast.IfStmt)
	if !ok || l.hi == nil || l.step != nil && !isOne(fc.t, l.step) {
		return false
	}
	k := fc.t.loopEqValue(fc.r, ifs.Cond)
	if k == nil {
		return false
	}
	kf, ok1 := fc.form(k, 0)
	hf, ok2 := fc.form(l.hi, 0)
	if !ok1 || !ok2 {
		return false
	}
	switch l.op {
	case token.LSS:
		return len(hf.add(kf, -1).add(linForm{"": 1}, -1)) == 0
	case token.LEQ:
		return len(hf.add(kf, -1)) == 0
	}
	return false
}

// isOne reports whether e is the constant 1.
func isOne(t *translator, e ast.Expr) bool {
	tv, ok := t.info.Types[e]
	return ok && tv.Value != nil && tv.Value.ExactString() == "1"
}

// trips returns the number of iterations of r's loop when its bounds
// differ by a constant (for i := 0; i < 8; i++; for i := k; i <= k+3; i++).
func (fc *formCtx) trips(step int64) (int64, bool) {
	l := fc.r.loop
	if l.lo == nil || l.hi == nil {
		return 0, false
	}
	lo, ok1 := fc.form(l.lo, 0)
	hi, ok2 := fc.form(l.hi, 0)
	span := hi.add(lo, -1)
	if _, constant := span[""]; !ok1 || !ok2 || len(span) > 1 || len(span) == 1 && !constant {
		return 0, false
	}
	n := max(span[""], -span[""])
	if l.op == token.LEQ || l.op == token.GEQ {
		n++
	}
	return (n + step - 1) / step, true
}

// pathsMatch reports whether the fields and indices that w and rd apply
// after their first index name the same element when iteration i+d
// writes w and iteration i reads rd (or, with fewer, what holds it): the
// same fields, and indices that are the same forms with i+d for i in w's.
func (fc *formCtx) pathsMatch(w, rd flowPlace, d int64) bool {
	// A read of what holds the written place (row := g[i-1], then its
	// elements read through row) reads it too.
	if len(w.path) < len(rd.path) {
		return false
	}
	for k, rs := range rd.path {
		ws := w.path[k]
		if ws.field != rs.field || ws.field == "*" {
			return false
		}
		if ws.field != "" {
			continue
		}
		if ws.form == nil || rs.form == nil || !fc.sameCounters(ws.form, rs.form, w.at, rd.at) {
			return false
		}
		if diff := shifted(ws.form, d).add(rs.form, -1); len(diff) != 0 {
			return false
		}
	}
	return true
}

// shifted returns f with i+d for the loop variable i.
func shifted(f linForm, d int64) linForm {
	out := linForm{}
	for m, c := range f {
		out[m] += c
		if s, inLoop := withoutLoop(m); inLoop {
			out[s] += c * d
		}
	}
	return out.add(nil, 0)
}

// A flowPlace is an element of a shared array that r's loop body reads
// or writes.
type flowPlace struct {
	form linForm  // its index in the array
	ix   ast.Expr // the place: an index expression, or a field of a pointer to an element
	at   ast.Node // where in the loop body: ix, or the call that reaches it
	// path: the fields and indices applied after the first index
	// (g[i][j]: [j]; cs[i].a: [.a]).
	path []pathStep
	// guards: the conditions of the form x % m == c (or x & (m-1)) that
	// the place runs under (a red-black sweep's (i+j)%2 == color, or
	// if i%2 != color { continue } before it): a write and a read under
	// one such guard both run only where their x agree modulo m. Other
	// conditions are taken as letting both run.
	guards []modGuard
}

// A modGuard is a condition under which a place runs: x % m (or x & (m-1))
// equal to something the iterations share.
type modGuard struct {
	cond ast.Expr
	x    linForm
	m    int64
}

// A pathStep is a field selected (field), or an index (form; nil if the
// translator cannot read it); field "*" goes through a pointer.
type pathStep struct {
	field string
	form  linForm
}

// pathOut returns the steps that outer applies to inner, one of its
// operands (outer is inner, or made of it by indexing and selecting).
func (fc *formCtx) pathOut(inner, outer ast.Expr) []pathStep {
	var rev []pathStep
	for e := ast.Unparen(outer); e != inner; {
		switch x := e.(type) {
		case *ast.IndexExpr:
			f, _ := fc.form(x.Index, 0)
			rev = append(rev, pathStep{form: f})
			e = ast.Unparen(x.X)
		case *ast.SelectorExpr:
			step := fc.fieldStep(x)
			if ast.Unparen(x.X) == inner && step.field == "*" && fc.t.info.Selections[x] != nil && fc.t.info.Selections[x].Kind() == types.FieldVal {
				step.field = x.Sel.Name // c.v with c the pointer to the element
			}
			rev = append(rev, step)
			e = ast.Unparen(x.X)
		case *ast.StarExpr:
			rev = append(rev, pathStep{field: "*"})
			e = ast.Unparen(x.X)
		default:
			return []pathStep{{field: "*"}} // not a chain: not judged
		}
	}
	slices.Reverse(rev)
	return rev
}

// pathUp returns the steps applied to x where it stands (the index and
// selector expressions it is the operand of, outward) and the outermost
// of them.
func (fc *formCtx) pathUp(x ast.Expr) ([]pathStep, ast.Expr) {
	var out []pathStep
	for cur := ast.Expr(x); ; {
		switch p := fc.t.parent[cur].(type) {
		case *ast.IndexExpr:
			if p.X != cur {
				return out, cur
			}
			f, _ := fc.form(p.Index, 0)
			out = append(out, pathStep{form: f})
			cur = p
		case *ast.SelectorExpr:
			if _, isField := fc.t.info.Selections[p]; !isField {
				return out, cur
			}
			out = append(out, fc.fieldStep(p))
			cur = p
		case *ast.ParenExpr:
			cur = p
		default:
			return out, cur
		}
	}
}

// fieldStep is the step of the selector x: its field, or "*" where it
// goes through a pointer or selects a method.
func (fc *formCtx) fieldStep(x *ast.SelectorExpr) pathStep {
	sel := fc.t.info.Selections[x]
	if sel == nil || sel.Kind() != types.FieldVal || fc.t.isPointer(x.X) {
		return pathStep{field: "*"}
	}
	return pathStep{field: x.Sel.Name}
}

// guardsOf returns the remainder or mask conditions that n, in body, runs
// under (modGuard).
func (fc *formCtx) guardsOf(n ast.Node, body ast.Node) []modGuard {
	var gs []modGuard
	add := func(cond ast.Expr, runsIfEqual bool) {
		if g, ok := fc.modGuard(cond, runsIfEqual); ok {
			gs = append(gs, g)
		}
	}
	for cur := n; cur != nil && cur != body; cur = fc.t.parent[cur] {
		switch p := fc.t.parent[cur].(type) {
		case *ast.IfStmt:
			if p.Cond != cur {
				add(p.Cond, p.Body == cur)
			}
		case *ast.BlockStmt:
			// if i%2 != color { continue } before cur, in its block.
			for _, st := range p.List {
				if st == cur {
					break
				}
				if ifs, ok := st.(*ast.IfStmt); ok && skipsRest(ifs) {
					add(ifs.Cond, false)
				}
			}
		}
	}
	return gs
}

// modGuard reads cond as a guard: with runsIfEqual, the code runs where
// cond holds, else where it does not; it is a guard where the code then
// runs only for one residue: x % m == c or x & (m-1) == c (m a constant
// power of two for the mask; != for m = 2), c sharing nothing with the
// iteration.
func (fc *formCtx) modGuard(cond ast.Expr, runsIfEqual bool) (modGuard, bool) {
	b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok || b.Op != token.EQL && b.Op != token.NEQ {
		return modGuard{}, false
	}
	oneResidue := (b.Op == token.EQL) == runsIfEqual // else: all residues but one, one of two for m = 2
	for _, side := range [][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
		if fc.t.mentionsIteration(fc.r, side[1]) {
			continue
		}
		if x, m, ok := fc.residue(side[0], 0); ok && (oneResidue || m == 2) {
			return modGuard{cond: cond, x: x, m: m}, true
		}
	}
	return modGuard{}, false
}

// residue reads e as x % m or x & (m-1) (m a constant; a power of two for
// the mask), through a local of the loop body defined once as one (col :=
// (i+j)%2) or a function of the package returning one (color(i, j)).
func (fc *formCtx) residue(e ast.Expr, depth int) (linForm, int64, bool) {
	if depth > 4 {
		return nil, 0, false
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		if v := fc.t.varOf(x); v != nil && fc.scope == nil {
			if def := fc.t.onlyDefinition(fc.r, v); def != nil {
				return fc.residue(def, depth+1)
			}
		}
	case *ast.CallExpr:
		if sub, body := fc.calleeCtx(x); sub != nil && len(body.List) == 1 {
			if ret, ok := body.List[0].(*ast.ReturnStmt); ok && len(ret.Results) == 1 {
				return sub.residue(ret.Results[0], depth+1)
			}
		}
	case *ast.BinaryExpr:
		if x.Op != token.REM && x.Op != token.AND {
			break
		}
		tv, ok := fc.t.info.Types[x.Y]
		if !ok || tv.Value == nil {
			break
		}
		m, exact := constant.Int64Val(constant.ToInt(tv.Value))
		if x.Op == token.AND {
			m++
		}
		if !exact || m <= 1 || x.Op == token.AND && m&(m-1) != 0 {
			break
		}
		if f, ok := fc.form(x.X, 0); ok {
			return f, m, true
		}
	}
	return nil, 0, false
}

// skipsRest reports whether the if statement s ends its block's iteration
// where its condition holds: its body ends with continue (or return).
func skipsRest(s *ast.IfStmt) bool {
	if len(s.Body.List) == 0 {
		return false
	}
	switch last := s.Body.List[len(s.Body.List)-1].(type) {
	case *ast.BranchStmt:
		return last.Tok == token.CONTINUE
	case *ast.ReturnStmt:
		return true
	}
	return false
}

// flowSites are the places of a loop body's accesses, by array (arrayKey).
type flowSites struct {
	writes, reads map[string][]flowPlace
	// wrapped: reads of the form a[x % m] (a ring, a periodic boundary:
	// a[(i+1)%n]), by array (wrappedDependence).
	wrapped map[string][]wrappedRead
}

// A wrappedRead is a read a[x % m] of a loop body.
type wrappedRead struct {
	place flowPlace // x's form, the read and where it is
	m     linForm
}

// flowRead says where the place p is read, for an error: "a[i-1] is
// read", "get(a, i-1) reads a[j] (at main.go:3)".
func (t *translator) flowRead(p flowPlace) string {
	if p.at == ast.Node(p.ix) {
		return t.text(p.ix) + " is read"
	}
	return t.text(p.at) + " reads " + t.text(p.ix) + " (at " + t.where(p.ix.Pos()) + ")"
}

// flowSite names the written place p for an error: "a[i] at main.go:9",
// "set(a, i) writing a[k] at main.go:4".
func (t *translator) flowSite(p flowPlace) string {
	if p.at == ast.Node(p.ix) {
		return t.text(p.ix) + " at " + t.where(p.ix.Pos())
	}
	return t.text(p.at) + " writing " + t.text(p.ix) + " at " + t.where(p.ix.Pos())
}

// rangeValue adds to s the read of the range value (v in for i, v :=
// range a: a[i] at the iteration's start), where the loop ranges over a
// shared slice or a pointer to an array (over an array, Go ranges over a
// copy).
func (fc *formCtx) rangeValue(s *flowSites) {
	l := fc.r.loop
	if l.valueVar == nil || l.rangeX == nil {
		return
	}
	x := ast.Unparen(l.rangeX)
	if u, ok := x.(*ast.UnaryExpr); ok && u.Op == token.AND {
		x = ast.Unparen(u.X)
	} else if _, arr := fc.t.info.TypeOf(x).Underlying().(*types.Array); arr {
		return
	}
	if k, off, ok := fc.arrayKey(x); ok {
		s.reads[k] = append(s.reads[k], flowPlace{form: linForm{loopKey: 1}.add(off, 1), ix: l.value, at: l.value})
	}
}

// maxFlowCalls is how deep collect follows the calls of a loop body.
const maxFlowCalls = 2

// collect adds to s the places that body (the loop body, or a function
// it calls, at) reads and writes with indices fc can read as forms, and
// follows the calls of the package's functions.
func (fc *formCtx) collect(body ast.Node, at ast.Node, s *flowSites, depth int) {
	site := func(ix ast.Expr) ast.Node {
		if at != nil {
			return at
		}
		return ix
	}
	guard := func(n ast.Node) []modGuard {
		gs := fc.guardsOf(n, body)
		if at != nil {
			gs = append(gs, fc.root.guardsOf(at, fc.r.body)...)
		}
		return gs
	}
	place := func(form linForm, ix ast.Expr, at ast.Node, path []pathStep, n ast.Node) flowPlace {
		return flowPlace{form: form, ix: ix, at: at, path: path, guards: guard(n)}
	}
	wrote := func(e ast.Expr) {
		if ref, root, ok := fc.elemPlace(e); ok {
			s.writes[ref.key] = append(s.writes[ref.key], place(ref.off, e, site(e), fc.pathOut(root, e), e))
			return
		}
		if k, ix, off := fc.firstIndex(e); k != "" {
			if f, ok := fc.form(ix.Index, 0); ok {
				s.writes[k] = append(s.writes[k], place(f.add(off, 1), e, site(e), fc.pathOut(ix, e), e))
			}
		}
	}
	stored := map[ast.Node]bool{} // places a plain assignment stores to, unread
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			if x.Tok != token.DEFINE {
				for _, lhs := range x.Lhs {
					wrote(lhs)
					if x.Tok == token.ASSIGN {
						stored[ast.Unparen(lhs)] = true
					}
				}
			}
		case *ast.IncDecStmt:
			wrote(x.X)
		case *ast.IndexExpr:
			if stored[x] {
				return true // dst[k] = v reads no element of dst
			}
			if k, off, ok := fc.arrayKey(x.X); ok {
				if f, ok := fc.form(x.Index, 0); ok {
					path, pl := fc.pathUp(x)
					s.reads[k] = append(s.reads[k], place(f.add(off, 1), pl, site(pl), path, x))
				} else if rem, ok := ast.Unparen(x.Index).(*ast.BinaryExpr); ok && rem.Op == token.REM && len(off) == 0 && s.wrapped != nil {
					f, ok1 := fc.form(rem.X, 0)
					m, ok2 := fc.form(rem.Y, 0)
					if path, pl := fc.pathUp(x); ok1 && ok2 && len(path) == 0 {
						s.wrapped[k] = append(s.wrapped[k], wrappedRead{place(f, pl, site(pl), nil, x), m})
					}
				}
			}
		case *ast.SelectorExpr, *ast.StarExpr:
			if ref, root, ok := fc.elemPlace(x.(ast.Expr)); ok {
				path, pl := fc.pathUp(x.(ast.Expr))
				s.reads[ref.key] = append(s.reads[ref.key], place(ref.off, pl, site(pl), append(fc.pathOut(root, x.(ast.Expr)), path...), pl))
				return false
			}
		case *ast.CallExpr:
			fc.copyPlaces(x, s, site(x), guard(x))
			if depth < maxFlowCalls {
				if sub, body := fc.calleeCtx(x); sub != nil {
					if at == nil {
						sub.collect(body, x, s, depth+1)
					} else {
						sub.collect(body, at, s, depth+1)
					}
				}
			}
		}
		return true
	})
}

// copyPlaces adds to s the elements that copy(dst[lo:hi], src[lo2:hi2])
// writes and reads, where the windows' widths are constants of at most
// 8 (copy(a[i:i+1], a[i-1:i]) writes a[i] and reads a[i-1]), or else their
// first elements (copy(a[i*m:(i+1)*m], a[(i-1)*m:i*m]): the row before).
func (fc *formCtx) copyPlaces(call *ast.CallExpr, s *flowSites, at ast.Node, guards []modGuard) {
	if b, ok := fc.t.info.Uses[calleeIdent(call)].(*types.Builtin); !ok || b.Name() != "copy" || len(call.Args) != 2 {
		return
	}
	window := func(e ast.Expr) (string, linForm, int64, bool) {
		se, ok := ast.Unparen(e).(*ast.SliceExpr)
		if !ok || se.Low == nil || se.High == nil {
			return "", nil, 0, false
		}
		key, off, ok1 := fc.arrayKey(se.X)
		lo, ok2 := fc.form(se.Low, 0)
		if !ok1 || !ok2 {
			return "", nil, 0, false
		}
		hi, ok3 := fc.form(se.High, 0)
		w := hi.add(lo, -1)
		if c, constant := w[""]; !ok3 || len(w) > 1 || len(w) == 1 && !constant || c > 8 {
			return key, lo.add(off, 1), 1, true // a window of unknown width: its first element
		}
		return key, lo.add(off, 1), w[""], true
	}
	dk, dlo, dw, ok1 := window(call.Args[0])
	sk, slo, sw, ok2 := window(call.Args[1])
	if !ok1 || !ok2 {
		return
	}
	for k := range min(dw, sw) {
		s.writes[dk] = append(s.writes[dk], flowPlace{form: dlo.add(linForm{"": k}, 1), ix: call.Args[0], at: at, guards: guards})
		s.reads[sk] = append(s.reads[sk], flowPlace{form: slo.add(linForm{"": k}, 1), ix: call.Args[1], at: at, guards: guards})
	}
}

// elemPlace returns the element of a shared array that the place e (in a
// called function) lies in, and e's root, where e is a field of a pointer parameter
// bound to one (c.v, c.pos.x, *c, c.arr[2]; calleeCtx): through fields
// and arrays held in the element, not through pointers or slices it holds.
func (fc *formCtx) elemPlace(e ast.Expr) (arrayRef, ast.Expr, bool) {
	if fc.scope == nil {
		return arrayRef{}, nil, false
	}
	for e = ast.Unparen(e); ; {
		switch x := e.(type) {
		case *ast.Ident:
			ref, ok := fc.elems[fc.t.varOf(x)]
			return ref, x, ok
		case *ast.StarExpr:
			if _, isIdent := ast.Unparen(x.X).(*ast.Ident); !isIdent {
				return arrayRef{}, nil, false
			}
			e = ast.Unparen(x.X)
		case *ast.SelectorExpr:
			if _, isIdent := ast.Unparen(x.X).(*ast.Ident); !isIdent {
				if tx := fc.t.info.TypeOf(x.X); tx == nil {
					return arrayRef{}, nil, false
				} else if _, ptr := tx.Underlying().(*types.Pointer); ptr {
					return arrayRef{}, nil, false // through a pointer the element holds
				}
			}
			e = ast.Unparen(x.X)
		case *ast.IndexExpr:
			if tx := fc.t.info.TypeOf(x.X); tx == nil {
				return arrayRef{}, nil, false
			} else if _, arr := tx.Underlying().(*types.Array); !arr {
				return arrayRef{}, nil, false
			}
			e = ast.Unparen(x.X)
		default:
			return arrayRef{}, nil, false
		}
	}
}

// selectorChain reports whether e is fields selected from a variable
// (g.u, s.grid.rows).
func selectorChain(e ast.Expr) bool {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.SelectorExpr:
			e = x.X
		case *ast.Ident:
			return true
		default:
			return false
		}
	}
}

// firstIndex returns the key (arrayKey) of the shared array the place e
// indexes first (a in a[i][j], s.data in s.data[i].f), with that index
// expression and the offset of the slice indexed in the array (1 for d
// in d := a[1:]); else "".
func (fc *formCtx) firstIndex(e ast.Expr) (string, *ast.IndexExpr, linForm) {
	for e = ast.Unparen(e); ; {
		switch x := e.(type) {
		case *ast.IndexExpr:
			e = ast.Unparen(x.X)
			if k, off, ok := fc.arrayKey(e); ok {
				return k, x, off
			}
		case *ast.SelectorExpr:
			e = ast.Unparen(x.X)
		default:
			return "", nil, nil
		}
	}
}

// arrayKey names the shared array or slice that the expression x denotes,
// so that two expressions of one get one key: a variable (through slices
// copied or sub-sliced once, b := a, d := a[1:], to the variable copied,
// with the offset of its first element in it; an array copied is another)
// or a chain of fields of one (s.data, g.Rows); false for any other
// expression, or memory of the iteration's own.
func (fc *formCtx) arrayKey(x ast.Expr) (string, linForm, bool) {
	t, r := fc.t, fc.r
	x = ast.Unparen(x)
	if fc.scope != nil {
		// In a called function: a parameter standing for an array, or
		// memory the function does not make or assign.
		if id, ok := x.(*ast.Ident); ok {
			if ref, ok := fc.arrays[t.varOf(id)]; ok {
				return ref.key, ref.off, true
			}
		}
		if sel, ok := x.(*ast.SelectorExpr); ok {
			// g.u with g standing for a shared struct of the loop body.
			if root := t.rootVar(sel); root != nil && fc.aliases[root] != "" && selectorChain(sel) {
				return fc.aliases[root] + strings.TrimPrefix(t.text(sel), root.Name()), linForm{}, true
			}
		}
		if _, slice := x.(*ast.SliceExpr); !slice { // a slice: its operand is judged below
			if root := t.rootVar(x); root == nil || within(root.Pos(), fc.scope) || fc.written[root] {
				return "", nil, false
			}
		}
	}
	switch e := x.(type) {
	case *ast.SliceExpr:
		// a[lo:hi]: a, from lo.
		key, off, ok := fc.arrayKey(e.X)
		lo := linForm{}
		if e.Low != nil {
			f, okLo := fc.form(e.Low, 0)
			ok, lo = ok && okLo, f
		}
		if _, str := t.info.TypeOf(e.X).Underlying().(*types.Basic); !ok || str {
			return "", nil, false
		}
		return key, off.add(lo, 1), true
	case *ast.Ident:
		return fc.identKey(e)
	case *ast.SelectorExpr:
		root := t.rootVar(e)
		if root == nil || !t.sharedRoot(r, root) {
			return "", nil, false
		}
		for y := ast.Expr(e); ; {
			switch z := ast.Unparen(y).(type) {
			case *ast.SelectorExpr:
				y = z.X
				continue
			case *ast.Ident:
				return t.text(e), linForm{}, true
			}
			return "", nil, false // indexes or calls on the way: not judged
		}
	case *ast.CallExpr:
		if key, off, ok := fc.getterKey(e); ok {
			return key, off, true
		}
		return fc.returnedSlice(e) // g.Interior() returning g.V[1:g.N-1]
	}
	return "", nil, false
}

// identKey is arrayKey of the variable e: a shared array, or a local
// slice of one defined once (b := a, b := a[lo:], b := m.Row(i-1), w :=
// g.V[1:]), with the offset of its first element.
func (fc *formCtx) identKey(e *ast.Ident) (string, linForm, bool) {
	t, r := fc.t, fc.r
	v := t.varOf(e)
	off := linForm{}
	for range 4 {
		if v == nil {
			return "", nil, false
		}
		src := t.facts.sources[v]
		if len(src) != 1 || src[0].expr == nil {
			break
		}
		if _, slice := v.Type().Underlying().(*types.Slice); !slice {
			break // an array assigned is a copy: another array
		}
		from := ast.Unparen(src[0].expr)
		if se, ok := from.(*ast.SliceExpr); ok {
			lo := linForm{}
			if se.Low != nil {
				f, ok := fc.form(se.Low, 0)
				if !ok {
					break
				}
				lo = f
			}
			off, from = off.add(lo, 1), ast.Unparen(se.X)
		}
		if call, ok := from.(*ast.CallExpr); ok {
			// row := m.Row(i-1): a function returning one slice
			// expression of its parameters, read as that slice.
			if key, o, ok := fc.returnedSlice(call); ok {
				return key, off.add(o, 1), true
			}
			break
		}
		if sel, ok := from.(*ast.SelectorExpr); ok {
			// w := g.V[1:]: a shared struct's field.
			if key, o, ok := fc.arrayKey(sel); ok {
				return key, off.add(o, 1), true
			}
			break
		}
		id, ok := from.(*ast.Ident)
		if !ok || t.varOf(id) == nil {
			break
		}
		v = t.varOf(id) // b := a, slices: the same array
	}
	if v == nil || !t.sharedRoot(r, v) {
		return "", nil, false
	}
	return fmt.Sprintf("%s@%d", v.Name(), v.Pos()), off, true
}

// returnedSlice returns the array and offset of the slice that call
// returns, where the function called (the package's own, or another
// package's: calleeCtx) is one return of a slice expression of its
// parameters (m.Data[i*m.C:(i+1)*m.C]).
func (fc *formCtx) returnedSlice(call *ast.CallExpr) (string, linForm, bool) {
	sub, body := fc.calleeCtx(call)
	if sub == nil || len(body.List) != 1 {
		return "", nil, false
	}
	ret, ok := body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return "", nil, false
	}
	return sub.arrayKey(ret.Results[0])
}

// getterKey names, for call of another package's getter returning a slice
// field of its receiver or argument (g.Vs() returning g.Vals), the field
// as arrayKey names it written out (g.Vals), so that the getter's
// elements and the field's are one array.
func (fc *formCtx) getterKey(call *ast.CallExpr) (string, linForm, bool) {
	t := fc.t
	fld := t.foreignResultField(call)
	fn, recv := t.externalCallee(call)
	if fld == nil || fn == nil {
		return "", nil, false
	}
	arg := recv
	if index, path, _ := t.foreign.returnedField(fn); len(path) != 1 {
		return "", nil, false // promoted: m.Data, not m.Shape.Data, is its spelling
	} else if index >= 0 {
		arg = call.Args[index]
	}
	root := t.rootVar(arg)
	if root == nil || !t.sharedRoot(fc.r, root) {
		return "", nil, false
	}
	for y := ast.Unparen(arg); ; {
		switch z := y.(type) {
		case *ast.SelectorExpr:
			y = ast.Unparen(z.X)
			continue
		case *ast.Ident:
			return t.text(arg) + "." + fld.Name(), linForm{}, true
		}
		return "", nil, false
	}
}

// sharedRoot reports whether v is shared by r's iterations: declared
// outside the loop and in no clause.
func (t *translator) sharedRoot(r *region, v *types.Var) bool {
	return !within(v.Pos(), r.stmt) && r.clauseOf[v] == ""
}
