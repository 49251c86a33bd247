package translate

import (
	"errors"
	"fmt"
	"go/token"
	"sort"
	"strings"
)

// ErrNoDirectives is returned by Overlay when the package contains no
// //cape: directive, so there is nothing to translate.
var ErrNoDirectives = errors.New("translate: package has no //cape: directives")

// A Diagnostic is one positioned problem found in the user's package: a
// malformed directive, a construct the translator cannot honour, or a type
// error.
type Diagnostic struct {
	Pos token.Position
	Msg string
}

// String formats d like go vet does: "file:line:col: message".
func (d Diagnostic) String() string {
	if !d.Pos.IsValid() {
		return d.Msg
	}
	return fmt.Sprintf("%s: %s", d.Pos, d.Msg)
}

// ErrorList is every diagnostic of one translation, sorted by position. It
// is the error returned by Package, Overlay and Build when the user's package
// cannot be translated.
type ErrorList []Diagnostic

// Error prints one diagnostic per line.
func (l ErrorList) Error() string {
	var b strings.Builder
	for i, d := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(d.String())
	}
	return b.String()
}

func (l ErrorList) sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}

// dedup drops identical diagnostics (same position, same message).
func (l ErrorList) dedup() ErrorList {
	out := l[:0]
	for i, d := range l {
		if i > 0 && d == l[i-1] {
			continue
		}
		out = append(out, d)
	}
	return out
}
