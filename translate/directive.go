package translate

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"
	"unicode"
)

// dirKind is the kind of a //cape: directive.
type dirKind int

const (
	dirFor        dirKind = iota + 1 // //cape:parallel for
	dirSections                      // //cape:parallel sections
	dirSection                       // //cape:section
	dirCheckpoint                    // //cape:checkpoint v1, v2, ...
)

// A directive is one parsed //cape: comment.
type directive struct {
	kind    dirKind
	pos     token.Pos // the "//"
	text    string    // the comment, for messages
	clauses []clause
	vars    []clauseArg // //cape:checkpoint's variables
	used    bool        // attached to a statement
}

// A clause is one clause of a parallel directive, e.g. reduction(+:sum).
type clause struct {
	name string
	pos  token.Pos // of the name
	op   string    // reduction operator
	args []clauseArg
}

// A clauseArg is one comma-separated argument of a clause.
type clauseArg struct {
	text string
	pos  token.Pos
}

// reductionOps are the reduction operators, in OpenMP spelling, and the
// cape constants naming them.
var reductionOps = map[string]string{
	"+": "OpAdd", "*": "OpMul", "-": "OpSub", "&": "OpAnd", "|": "OpOr",
	"^": "OpXor", "&&": "OpLAnd", "||": "OpLOr", "min": "OpMin", "max": "OpMax",
}

var knownClauses = map[string]bool{
	"shared": true, "private": true, "firstprivate": true, "lastprivate": true,
	"reduction": true, "schedule": true,
}

// parseDirective parses the comment c if it is a cape directive. It returns
// nil and no error for ordinary comments.
func parseDirective(c *ast.Comment) (*directive, error) {
	text := c.Text
	if strings.HasPrefix(text, "// cape:") || strings.HasPrefix(text, "//\tcape:") {
		return nil, fmt.Errorf("directive must not have a space after //: write %q", "//"+strings.TrimLeft(text[2:], " \t"))
	}
	if rest, ok := strings.CutPrefix(text, "//cape:"); ok && (strings.HasPrefix(rest, " ") || strings.HasPrefix(rest, "\t")) {
		rest = strings.TrimLeft(rest, " \t")
		if i := strings.Index(rest, " //"); i >= 0 {
			rest = rest[:i] // a trailing comment
		}
		return nil, fmt.Errorf("directive must not have a space after //cape:: write %q", "//cape:"+rest)
	}
	d, ok := ast.ParseDirective(c.Slash, text)
	if !ok || d.Tool != "cape" {
		return nil, nil
	}
	dir := &directive{pos: c.Slash, text: text}
	args, argsPos := d.Args, d.ArgsPos
	if strings.HasPrefix(args, "//") {
		args = ""
	} else if i := strings.Index(args, " //"); i >= 0 {
		args = strings.TrimSpace(args[:i]) // a trailing comment
	}
	dir.text = "//cape:" + d.Name
	if args != "" {
		dir.text += " " + args
	}
	switch d.Name {
	case "section":
		if args != "" {
			return nil, fmt.Errorf("//cape:section takes no arguments")
		}
		dir.kind = dirSection
		return dir, nil
	case "checkpoint":
		dir.kind = dirCheckpoint
		var err error
		dir.vars, err = parseVarList(args, argsPos)
		return dir, err
	case "parallel":
	default:
		return nil, fmt.Errorf("unknown directive //cape:%s (want //cape:parallel for, //cape:parallel sections, //cape:section or //cape:checkpoint)", d.Name)
	}
	word, rest := args, ""
	if i := strings.IndexAny(args, " \t"); i >= 0 {
		word, rest = args[:i], args[i:]
	}
	switch word {
	case "for":
		dir.kind = dirFor
	case "sections":
		dir.kind = dirSections
	case "":
		return nil, fmt.Errorf("//cape:parallel needs a construct: //cape:parallel for or //cape:parallel sections")
	default:
		return nil, fmt.Errorf("unsupported construct //cape:parallel %s (want for or sections)", word)
	}
	cl, err := parseClauses(rest, argsPos+token.Pos(len(word)))
	if err != nil {
		return nil, err
	}
	dir.clauses = cl
	return dir, nil
}

// parseVarList parses //cape:checkpoint's comma-separated variable names
// (none is allowed: the arena alone is the live state).
func parseVarList(args string, base token.Pos) ([]clauseArg, error) {
	if strings.TrimSpace(args) == "" {
		return nil, nil
	}
	var out []clauseArg
	at := 0
	for _, part := range strings.Split(args, ",") {
		name := strings.TrimSpace(part)
		pos := base + token.Pos(at+strings.Index(part, name))
		if !isIdent(name) {
			return nil, &clauseError{pos, fmt.Sprintf("//cape:checkpoint: %q is not a variable name (want //cape:checkpoint v1, v2, ...)", name)}
		}
		out = append(out, clauseArg{text: name, pos: pos})
		at += len(part) + 1
	}
	return out, nil
}

// clauseError is a clause syntax error at a position inside the directive.
type clauseError struct {
	pos token.Pos
	msg string
}

func (e *clauseError) Error() string { return e.msg }

// parseClauses parses "name(args) name(args) ...", separated by blanks or
// commas. base is the position of s[0].
func parseClauses(s string, base token.Pos) ([]clause, error) {
	p := &clauseParser{s: s, base: base}
	var out []clause
	for {
		for p.i < len(s) && (s[p.i] == ' ' || s[p.i] == '\t' || s[p.i] == ',') {
			p.i++
		}
		if p.i == len(s) {
			return out, nil
		}
		c, err := p.clause()
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
}

// clauseParser is the state of parseClauses: the text, its position in the
// file, and the offset reached.
type clauseParser struct {
	s    string
	base token.Pos
	i    int
}

// errAt returns the error of the offset at in the clauses.
func (p *clauseParser) errAt(at int, format string, a ...any) error {
	return &clauseError{pos: p.base + token.Pos(at), msg: fmt.Sprintf(format, a...)}
}

// clause parses the clause at p.i: its name, its parenthesized list, and
// a reduction's operator.
func (p *clauseParser) clause() (clause, error) {
	s := p.s
	start := p.i
	for p.i < len(s) && (isLetter(s[p.i]) || s[p.i] >= '0' && s[p.i] <= '9') {
		p.i++
	}
	name := s[start:p.i]
	if name == "" {
		return clause{}, p.errAt(start, "unexpected %q in directive, want a clause", s[start:start+1])
	}
	if !knownClauses[name] {
		return clause{}, p.errAt(start, "unknown clause %q (want shared, private, firstprivate, lastprivate, reduction or schedule)", name)
	}
	for p.i < len(s) && (s[p.i] == ' ' || s[p.i] == '\t') {
		p.i++
	}
	if p.i == len(s) || s[p.i] != '(' {
		return clause{}, p.errAt(start, "clause %s needs a parenthesized list", name)
	}
	open := p.i
	depth := 0
	for ; p.i < len(s); p.i++ {
		if s[p.i] == '(' {
			depth++
		} else if s[p.i] == ')' {
			depth--
			if depth == 0 {
				break
			}
		}
	}
	if p.i == len(s) {
		return clause{}, p.errAt(open, "unclosed ( in clause %s", name)
	}
	inner, innerAt := s[open+1:p.i], open+1
	p.i++
	c := clause{name: name, pos: p.base + token.Pos(start)}
	if name == "reduction" {
		colon := strings.LastIndex(inner, ":")
		if colon < 0 {
			return clause{}, p.errAt(innerAt, "reduction clause needs op:vars, e.g. reduction(+:sum)")
		}
		c.op = strings.TrimSpace(inner[:colon])
		if _, ok := reductionOps[c.op]; !ok {
			return clause{}, p.errAt(innerAt, "unknown reduction operator %q (want + * - & | ^ && || min max)", c.op)
		}
		inner, innerAt = inner[colon+1:], innerAt+colon+1
	}
	if err := p.args(&c, inner, innerAt); err != nil {
		return clause{}, err
	}
	return c, nil
}

// args splits the list inner of the clause c, at offset innerAt, at its
// top-level commas into c.args.
func (p *clauseParser) args(c *clause, inner string, innerAt int) error {
	depth, from := 0, 0
	for j := 0; j <= len(inner); j++ {
		if j < len(inner) {
			switch inner[j] {
			case '(', '[', '{':
				depth++
				continue
			case ')', ']', '}':
				depth--
				continue
			case ',':
				if depth > 0 {
					continue
				}
			default:
				continue
			}
		}
		arg := inner[from:j]
		lead := len(arg) - len(strings.TrimLeftFunc(arg, unicode.IsSpace))
		arg = strings.TrimSpace(arg)
		if arg == "" {
			return p.errAt(innerAt+from, "empty argument in clause %s", c.name)
		}
		c.args = append(c.args, clauseArg{text: arg, pos: p.base + token.Pos(innerAt+from+lead)})
		from = j + 1
	}
	return nil
}

func isLetter(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

func isIdent(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isLetter(s[i]) && !(s[i] >= '0' && s[i] <= '9') {
			return false
		}
	}
	return !token.IsKeyword(s)
}
