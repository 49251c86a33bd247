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
	dirFor      dirKind = iota + 1 // //cape:parallel for
	dirSections                    // //cape:parallel sections
	dirSection                     // //cape:section
)

// A directive is one parsed //cape: comment.
type directive struct {
	kind    dirKind
	pos     token.Pos // the "//"
	text    string    // the comment, for messages
	clauses []clause
	used    bool // attached to a statement
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
	case "parallel":
	default:
		return nil, fmt.Errorf("unknown directive //cape:%s (want //cape:parallel for, //cape:parallel sections or //cape:section)", d.Name)
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

// clauseError is a clause syntax error at a position inside the directive.
type clauseError struct {
	pos token.Pos
	msg string
}

func (e *clauseError) Error() string { return e.msg }

// parseClauses parses "name(args) name(args) ...", separated by blanks or
// commas. base is the position of s[0].
func parseClauses(s string, base token.Pos) ([]clause, error) {
	var out []clause
	i := 0
	errAt := func(at int, format string, a ...any) error {
		return &clauseError{pos: base + token.Pos(at), msg: fmt.Sprintf(format, a...)}
	}
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == ',') {
			i++
		}
		if i == len(s) {
			return out, nil
		}
		start := i
		for i < len(s) && (isLetter(s[i]) || s[i] >= '0' && s[i] <= '9') {
			i++
		}
		name := s[start:i]
		if name == "" {
			return nil, errAt(start, "unexpected %q in directive, want a clause", s[start:start+1])
		}
		if !knownClauses[name] {
			return nil, errAt(start, "unknown clause %q (want shared, private, firstprivate, lastprivate, reduction or schedule)", name)
		}
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i == len(s) || s[i] != '(' {
			return nil, errAt(start, "clause %s needs a parenthesized list", name)
		}
		open := i
		depth := 0
		for ; i < len(s); i++ {
			if s[i] == '(' {
				depth++
			} else if s[i] == ')' {
				depth--
				if depth == 0 {
					break
				}
			}
		}
		if i == len(s) {
			return nil, errAt(open, "unclosed ( in clause %s", name)
		}
		inner, innerAt := s[open+1:i], open+1
		i++
		c := clause{name: name, pos: base + token.Pos(start)}
		if name == "reduction" {
			colon := strings.LastIndex(inner, ":")
			if colon < 0 {
				return nil, errAt(innerAt, "reduction clause needs op:vars, e.g. reduction(+:sum)")
			}
			c.op = strings.TrimSpace(inner[:colon])
			if _, ok := reductionOps[c.op]; !ok {
				return nil, errAt(innerAt, "unknown reduction operator %q (want + * - & | ^ && || min max)", c.op)
			}
			inner, innerAt = inner[colon+1:], innerAt+colon+1
		}
		// Split at top-level commas.
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
				return nil, errAt(innerAt+from, "empty argument in clause %s", name)
			}
			c.args = append(c.args, clauseArg{text: arg, pos: base + token.Pos(innerAt+from+lead)})
			from = j + 1
		}
		out = append(out, c)
	}
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
