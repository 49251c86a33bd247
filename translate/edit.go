package translate

import (
	"fmt"
	"sort"
)

// An edit replaces src[start:end] with text.
type edit struct {
	start, end int
	text       string
	seq        int
	rank       editRank
}

// editRank orders the edits that start at one offset: the end of an
// expression wrapped there, then insertions before a statement, then the
// start of an expression wrapped there, then replacements; edits of one
// rank go in the order they were made.
type editRank uint8

const (
	rankClose   editRank = iota // insertExpr's closing text
	rankInsert                  // insert
	rankOpen                    // insertExpr's opening text
	rankReplace                 // replace of a non-empty range
)

// editor accumulates non-overlapping edits of one source file.
type editor struct {
	src   []byte
	edits []edit
	seq   int
	err   error // the first internal error
}

func (e *editor) replace(start, end int, text string) {
	r := rankReplace
	if start == end {
		r = rankInsert
	}
	e.add(edit{start: start, end: end, text: text, rank: r})
}

func (e *editor) add(ed edit) {
	e.seq++
	ed.seq = e.seq
	e.edits = append(e.edits, ed)
}

func (e *editor) insert(at int, text string) { e.replace(at, at, text) }

// wrap surrounds the expression at src[start:end] with open and close:
// open goes after the insertions before a statement that starts there and
// before any replacement of the expression's first token, close before
// anything inserted after the expression. Of two wraps of one offset, the
// one made first is the outer one: wrap outer expressions first.
func (e *editor) wrap(start, end int, open, close string) {
	e.add(edit{start: start, end: start, text: open, rank: rankOpen})
	e.add(edit{start: end, end: end, text: close, rank: rankClose})
}

// inside reports whether ed lies within [start, end); an insertion at end
// belongs to what follows.
func inside(ed edit, start, end int) bool {
	return ed.start >= start && ed.end <= end && (ed.start < end || start == end)
}

// take returns src[start:end] with the edits inside it applied, and removes
// those edits: the caller moves the text elsewhere.
func (e *editor) take(start, end int) string {
	var in, keep []edit
	for _, ed := range e.edits {
		if inside(ed, start, end) {
			in = append(in, ed)
		} else {
			keep = append(keep, ed)
		}
	}
	e.edits = keep
	out, err := render(e.src, start, end, in)
	if err != nil && e.err == nil {
		e.err = err // overlapping edits: a bug in the translator
	}
	return string(out)
}

// peek returns src[start:end] with the edits inside it (an insertion at
// end included) and those of extra inside it applied, leaving the editor
// unchanged: the caller repeats the text elsewhere.
func (e *editor) peek(start, end int, extra []edit) string {
	var in []edit
	for _, eds := range [][]edit{extra, e.edits} {
		for _, ed := range eds {
			if ed.start >= start && ed.end <= end {
				in = append(in, ed)
			}
		}
	}
	out, err := render(e.src, start, end, in)
	if err != nil && e.err == nil {
		e.err = err
	}
	return string(out)
}

// drop removes the edits inside [start, end).
func (e *editor) drop(start, end int) { e.take(start, end) }

// apply returns the edited source.
func (e *editor) apply() ([]byte, error) {
	if e.err != nil {
		return nil, e.err
	}
	return render(e.src, 0, len(e.src), e.edits)
}

func render(src []byte, start, end int, edits []edit) ([]byte, error) {
	edits = append([]edit(nil), edits...)
	sort.SliceStable(edits, func(i, j int) bool {
		if edits[i].start != edits[j].start {
			return edits[i].start < edits[j].start
		}
		if edits[i].rank != edits[j].rank {
			return edits[i].rank < edits[j].rank
		}
		if edits[i].rank == rankClose { // inner wraps close first
			return edits[i].seq > edits[j].seq
		}
		return edits[i].seq < edits[j].seq
	})
	var out []byte
	at := start
	for _, ed := range edits {
		if ed.start < at {
			return nil, fmt.Errorf("translate: internal error: overlapping edits at offset %d", ed.start)
		}
		out = append(out, src[at:ed.start]...)
		out = append(out, ed.text...)
		at = ed.end
	}
	return append(out, src[at:end]...), nil
}
