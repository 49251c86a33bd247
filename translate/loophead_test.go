package translate

import (
	"strings"
	"testing"
)

// TestLoopEndChecked checks which loop headers the translation proves to
// end at their bound (no check), which it refuses (they never can), and
// which it hands to cape.LoopCount at run time.
func TestLoopEndChecked(t *testing.T) {
	const head = "package main\n\nimport (\n\t\"fmt\"\n\t\"math\"\n)\n\nvar _ = math.MaxInt8\n\n" +
		"func main() {\n\tn, s := 10, 2\n\tvar u uint = 5\n\tvar b int8 = 3\n\ta := make([]int, 300)\n\t_, _, _, _ = n, s, u, b\n"
	cases := []struct {
		header  string
		checked bool
		refused string // a part of the error, "" where accepted
	}{
		{"i := 0; i < n; i++", false, ""},
		{"i := n; i > 0; i--", false, ""},
		{"i := n - 1; i >= 0; i--", false, ""},
		{"i := 0; i < n; i += 3", true, ""}, // n may be near the largest int
		{"i := 0; i < 100; i += 7", false, ""},
		{"i := n; i <= 100; i += 7", false, ""},
		{"i := 0; i <= n; i++", true, ""}, // n may be the largest int
		{"i := 0; i < n; i += s", true, ""},
		{"i := u; i > 0; i--", false, ""},
		{"i := u; i >= 1; i -= 2", true, ""},
		{"i := u; i >= 2; i--", false, ""},
		{"i := b; i < 120; i += 9", true, ""}, // int8: 119+9 wraps around
		{"i := b; i < 120; i += 8", false, ""},
		{"i := int8(-100); i > -128; i -= 30", false, "wraps around below -128 before i > -128 is false (after i = -100 comes 126)"},
		{"i := int8(0); i <= 100; i += 30", false, ""},
		{"i := u; i >= 0; i--", false, "the loop condition i >= 0 holds for every value of i (uint)"},
		{"i := b; i <= math.MaxInt8; i++", false, "holds for every value of i (int8)"},
		{"i := 1; i < n; i = i + i", false, "the loop's step uses the loop variable i"},
		{"i := 1; i < n*i; i++", false, "the loop's bound uses the loop variable i"},
		{"i := 0; i < n; i += int(math.Abs(float64(s)))", true, ""},
		{"i := 0; i < n; i += len(fmt.Sprint(s))", false, "the loop increment calls fmt.Sprint"},
	}
	for _, c := range cases {
		t.Run(c.header, func(t *testing.T) {
			src := head + "\t//cape:parallel for\n\tfor " + c.header + " {\n\t\ta[int(i)+128] = 1\n\t}\n\tfmt.Println(a)\n}\n"
			out, err := translateMain(t, &Config{Importer: testImporter(t)}, src)
			switch {
			case c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused)):
				t.Fatalf("got %v, want refused with %q", err, c.refused)
			case c.refused != "":
			case err != nil:
				t.Fatalf("refused: %v", err)
			case strings.Contains(out, "LoopCount(") != c.checked:
				t.Errorf("checked at run time: %v, want %v:\n%s", !c.checked, c.checked, out)
			}
		})
	}
}

// TestLoopHeadWrites checks which writes of the loop body (and of what it
// calls) change what the loop's bound or step reads: refused; the others
// are accepted (err_loophead.go has more refused ones).
func TestLoopHeadWrites(t *testing.T) {
	head := "package main\n\nimport (\n\t\"flag\"\n\t\"fmt\"\n)\n" + `
type grid struct {
	n    int
	data []float64
	rows [4]int
}

func (g *grid) set(i int) { g.data[i] = float64(i) }
func (g *grid) grow()     { g.n++ }
func (g *grid) size() int { return g.n }
func (g *grid) cells() int { return len(g.data) }
func half(g *grid) int    { return g.size() / 2 }
func (g *grid) at(i int) int { return g.rows[i] }

var _ = flag.Int

func sum(v []int) (s int) {
	for _, x := range v {
		s += x
	}
	return s
}
`
	loop := func(header, body string) string {
		return "\n\tg := &grid{n: 8, data: make([]float64, 64)}\n\tv := grid{n: 8}\n\tlim := make([]int, 4)\n\tout := make([]int, 64)\n\tnp := flag.Int(\"n\", 8, \"\")\n\tflag.Parse()\n\tlim[0] = 8\n" +
			"\t//cape:parallel for\n\tfor " + header + " {\n" + body + "\n\t}\n\tfmt.Println(g.n, g.data, v, lim, out, *np)"
	}
	checkPrograms(t, head, []programCase{
		{"a method writes another field", loop("i := 0; i < g.n; i++", "g.set(i)"), ""},
		{"a method writes the bound's field", loop("i := 0; i < g.n; i++", "if i == 2 { g.grow() }"), `g.n is modified in the parallel loop \(called from the parallel region at main.go:\d+\), but the loop's bound g.n reads the field n`},
		{"the bound's slice's elements", loop("i := 0; i < len(g.data); i++", "g.data[i] = 1"), ""},
		{"a value's other field", loop("i := 0; i < v.n; i++", "if i == 0 { v.rows[1] = 2 }"), ""},
		{"a value's field", loop("i := 0; i < v.n; i++", "if i == 0 { v.n = 2 }"), `v.n is modified in the parallel loop, but the loop's bound v.n uses it`},
		{"an array element of the bound", loop("i := 0; i < v.rows[0]; i++", "if i == 0 { v.rows[2] = 2 }"), `v.rows\[2\] is modified`},
		{"a flag's value and another slice", loop("i := 0; i < *np; i++", "out[i] = i"), ""},
		{"a slice made apart", loop("i := 0; i < lim[0]; i++", "out[i] = i"), ""},
		{"the bound's element", loop("i := 0; i < lim[0]; i++", "if i == 1 { lim[0] = 3 }"), `lim\[0\] is modified in the parallel loop, but the loop's bound lim\[0\] reads an int`},
		{"handed to copy", loop("i := 0; i < lim[0]; i++", "if i == 1 { copy(lim, out) }"), `what lim refers to may be modified \(by copy\(lim, out\)\)`},
		{"a getter", loop("i := 0; i < g.size(); i++", "g.set(i)"), ""},
		{"a getter of a getter, and len", loop("i := 0; i < half(g)+g.cells()-64; i++", "out[i] = i"), ""},
		{"a getter's field written", loop("i := 0; i < half(g); i++", "if i == 1 { g.n = 2 }"), `g.n is modified in the parallel loop, but the loop's bound half.g. reads the field n`},
		{"a getter that indexes", loop("i := 0; i < g.at(0); i++", "out[i] = i"), `the loop condition calls g.at`},
		{"a pointer to the bound taken before the loop", "\n\tn := 8\n\tp := &n\n\tout := make([]int, 8)\n\t//cape:parallel for\n\tfor i := 0; i < n; i++ {\n\t\tout[i] = i\n\t\tif i == 3 {\n\t\t\t*p = 5\n\t\t}\n\t}\n\tfmt.Println(n, out)", `\*p is modified in the parallel loop, but the loop's bound n reads an int in memory that this may write`},
		{"the bound's address handed to flag, a slice written", "\n\tvar n int\n\tflag.IntVar(&n, \"m\", 8, \"\")\n\tflag.Parse()\n\tout := make([]int, n)\n\t//cape:parallel for\n\tfor i := 0; i < n; i++ {\n\t\tout[i] = i\n\t}\n\tsum(out)\n\tfmt.Println(n, out)", ""},
		{"the step's pointer", loop("i := 0; i < 40; i += *np", "if i == 1 { *np = 3 }"), `\*np is modified in the parallel loop, but the loop's step \*np`},
	})
}
