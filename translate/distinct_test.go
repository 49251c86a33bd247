package translate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUpdates checks which parallel loops the runtime is told update
// shared elements at indices not proved distinct per iteration
// (Region.Updates, distinct.go): histograms and scatters through data or
// modular arithmetic are, and so are indices that a narrowing conversion,
// a factor that may be 0 or a window wider than its stride make repeat;
// updates indexed by the loop variable (through arithmetic, widening
// conversions and locals defined once), of the iteration's own memory, or
// of a reduction's private copy are not.
func TestUpdates(t *testing.T) {
	cases := []struct {
		name, body string
		updates    bool
	}{
		{"own element", "a[i] += 1", false},
		{"affine", "a[2*i+1] += 1; a[i-1+1] *= 2", false},
		{"flattened row, modulo", "for j := 0; j < 4; j++ { a[i*4+j%4] += 1 }", false},
		{"flattened row, counter", "for j := 0; j < 4; j++ { a[i*4+j] += 1 }", false},
		{"range counter", "for j := range 4 { b[i][j]++ }", false},
		{"local defined once", "k := i*3 + n; a[k]++", false},
		{"conversion", "a[int(int64(i))]++", false},
		{"narrowing conversion", "a[uint8(i)]++; a[int(int32(i))]++", true},
		{"times a variable", "a[i*n]++", true},
		{"times zero", "a[i*0]++", true},
		{"shifted by a variable", "a[i<<n]++", true},
		{"shifted by a constant", "a[i<<2]++", false},
		{"flattened row, variable stride", "for j := 0; j < n; j++ { a[i*n+j] += 1 }", true},
		{"flattened row, range counter", "for j := range 4 { a[4*i+j]++ }", false},
		{"counter reassigned", "for j := 0; j < 4; j++ { j += 2; a[i*4+j] += 1 }", true},
		{"struct field", "s[i].x++", false},
		{"modulo", "a[i%4]++", true},
		{"division", "a[i/2] += 1", true},
		{"data", "v := a[i]; a[v%4]++", true},
		{"data inline", "a[p[i]] += 1", true},
		{"local reassigned", "k := i; if k > 3 { k = 0 }; a[k]++", true},
		{"local plus data", "k := p[i]; a[i+k]++", true},
		{"inner counter only", "for j := 0; j < 4; j++ { b[j][0]++ }", true},
		{"own local array", "var h [4]int; h[i%4]++; a[i] = h[0]", false},
		{"plain write", "a[i%4] = i", false},
		{"through pointers of a slice", "*ptrs[i] += 1", true},
		{"through a local pointer", "q := &a[p[i]]; *q += 1", true},
		{"through a local pointer to a struct", "q := &s[p[i]]; q.x++", true},
		{"through a pointer field", "*s[i].ptr += 1", true},
		{"through the shared struct's pointer", "g.rows[i]++", false},
	}
	cfg := &Config{Importer: testImporter(t)}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := hintHead + "type pt struct {\n\tx   int\n\tptr *int\n}\n\ntype grid struct{ rows []int }\n\nfunc main() {\n\tn := 2\n\ta := make([]int, 64)\n\tp := make([]int, 16)\n\tb := make([][]int, 16)\n\ts := make([]pt, 16)\n\tptrs := []*int{&a[0], &a[0]}\n\tg := &grid{rows: make([]int, 16)}\n\tfor i := range b {\n\t\tb[i] = make([]int, 4)\n\t}\n" +
				"\t//cape:parallel for\n\tfor i := 0; i < 16; i++ {\n\t\t" + c.body + "\n\t}\n\tfmt.Println(a, p, b, s, n, ptrs, g)\n}\n"
			out, err := translateMain(t, cfg, src)
			if err != nil {
				t.Fatalf("translate: %v\n%s", err, src)
			}
			if got := strings.Contains(out, ".Updates()"); got != c.updates {
				t.Errorf("Updates %v, want %v:\n%s", got, c.updates, out)
			}
		})
	}
	// A reduction's private copy is the iteration's own.
	src := hintHead + "func main() {\n\th := make([]int, 4)\n\t//cape:parallel for reduction(+:h)\n\tfor i := 0; i < 16; i++ {\n\t\th[i%4]++\n\t}\n\tfmt.Println(h)\n}\n"
	out, err := translateMain(t, cfg, src)
	if err != nil {
		t.Fatalf("translate: %v", err)
	}
	if strings.Contains(out, ".Updates()") {
		t.Errorf("reduction(+:h): Updates emitted:\n%s", out)
	}
}

// TestUpdatesInCallee: an update made by a function the loop calls, at an
// index it is handed, marks the region as the same update in the body
// would.
func TestUpdatesInCallee(t *testing.T) {
	cases := []struct {
		name, body string
		updates    bool
	}{
		{"handed the loop variable", "add(a, i)", false},
		{"handed an affine index", "add(a, 2*i+1)", false},
		{"handed a bucket", "add(a, p[i]%4)", true},
		{"handed a bucket through a local", "k := p[i] % 4; add(a, k)", true},
		{"own memory", "h := make([]int, 4); add(h, i%4); a[i] = h[0]", false},
		{"handed a row", "add(a[i*4:(i+1)*4], 1)", false},
		{"handed the same row", "add(a[0:4], i%4)", true},
		{"two calls deep, a bucket", "bump(a, i)", true},
		{"two calls deep, the loop variable", "pass(a, i)", false},
		{"two calls deep, an affine index", "pass(a, 3*i+1)", false},
		{"two calls deep, own memory", "h := make([]int, 4); bump(h, i); a[i] = h[0]", false},
		{"two calls deep, a sub-slice", "window(a, i)", true},
	}
	cfg := &Config{Importer: testImporter(t)}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := hintHead + "func add(h []int, k int) { h[k]++ }\n\nfunc bump(h []int, v int) { add(h, v%4) }\n\nfunc pass(h []int, k int) { add(h, k) }\n\nfunc window(h []int, k int) { add(h[k%4:], 0) }\n\nfunc main() {\n\ta := make([]int, 64)\n\tp := make([]int, 16)\n" +
				"\t//cape:parallel for\n\tfor i := 0; i < 16; i++ {\n\t\t" + c.body + "\n\t}\n\tfmt.Println(a, p)\n}\n"
			out, err := translateMain(t, cfg, src)
			if err != nil {
				t.Fatalf("translate: %v\n%s", err, src)
			}
			if got := strings.Contains(out, ".Updates()"); got != c.updates {
				t.Errorf("Updates %v, want %v:\n%s", got, c.updates, out)
			}
		})
	}
}

// TestUpdatesThroughValues: updates made through a closure made before
// the loop, a method value and an interface method are seen as those of a
// function called directly: refused where every iteration updates the
// same place, the region marked where the place varies but not provably
// per iteration, nothing where it is the iteration's own.
func TestUpdatesThroughValues(t *testing.T) {
	cases := []struct {
		name, before, body string
		refused, updates   bool
	}{
		{"closure, same place", "bump := func(k int) { a[0] += k }", "bump(1)", true, false},
		{"closure, the loop variable", "bump := func(k int) { a[k] += 1 }", "bump(i)", false, false},
		{"closure, a bucket", "bump := func(k int) { a[k] += 1 }", "bump(p[i] % 4)", false, true},
		{"closure made in the iteration", "", "local := 0; bump := func() { local++ }; bump(); a[i] = local", false, false},
		{"method value", "f := c.inc", "f()", true, false},
		{"method value made in the iteration", "cs := make([]ctr, 16)", "f := cs[i].inc; f(); a[i] = cs[i].n", false, false},
		{"interface method", "var ic incer = c", "ic.inc()", true, false},
		{"interface method on the iteration's value", "cs := make([]ctr, 16)", "var ic incer = &cs[i]; ic.inc(); a[i] = cs[i].n", false, false},
	}
	cfg := &Config{Importer: testImporter(t)}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := hintHead + "type ctr struct{ n int }\n\nfunc (c *ctr) inc() { c.n++ }\n\ntype incer interface{ inc() }\n\n" +
				"func main() {\n\ta := make([]int, 64)\n\tp := make([]int, 16)\n\tc := &ctr{}\n\t" + c.before + "\n" +
				"\t//cape:parallel for\n\tfor i := 0; i < 16; i++ {\n\t\t" + c.body + "\n\t}\n\tfmt.Println(a, p, c)\n}\n"
			out, err := translateMain(t, cfg, src)
			if refused := err != nil && strings.Contains(err.Error(), "at the same place"); refused != c.refused {
				t.Fatalf("refused %v, want %v: %v\n%s", refused, c.refused, err, src)
			}
			if c.refused {
				return
			}
			if err != nil {
				t.Fatalf("translate: %v\n%s", err, src)
			}
			if got := strings.Contains(out, ".Updates()"); got != c.updates {
				t.Errorf("Updates %v, want %v:\n%s", got, c.updates, out)
			}
		})
	}
}

// translateMain translates src, a main package in a file of its own, and
// returns the generated code, which must type-check, or the translation's
// error.
func translateMain(t *testing.T, cfg *Config, src string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "main.go")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := cfg.Files(dir, []string{file}, nil)
	if err != nil {
		return "", err
	}
	typeCheck(t, file, res.Files[file])
	return string(res.Files[file]), nil
}

// TestMarks checks which writes a loop body marks for the runtime's
// comparison of the nodes' values (cape.Mark): places not proved each
// iteration's own, unless listed in shared.
// step is the loop's step for a TestMarks body: 2 if it starts /*step 2*/.
func step(body string) string {
	if strings.HasPrefix(body, "/*step 2*/") {
		return "2"
	}
	return "1"
}

func TestMarks(t *testing.T) {
	cases := []struct {
		name, clauses, body string
		marks               int // Mark calls in the output (the loop and its --verify re-run)
	}{
		{"own element", "", "a[i] = 1", 0},
		{"through a permutation", "", "a[p[i]] = 1", 2},
		{"listed in shared", "shared(a)", "a[p[i]] = 1", 0},
		{"a constant index", "", "a[0] = i", 2},
		{"an update of a bucket", "", "a[p[i]%4] += 1", 2},
		{"through a pointer", "", "q := &a[p[i]]; *q = 2", 2},
		{"a place with a call", "", "a[f(i)] = 1", 2}, // f folds i (i % 4); cape.MarkAt: f called once
		{"an index function", "", "a[at(i, 3)] = 1", 0},
		{"a method index", "", "a[g.at(i, 3)] = 1", 2},                                   // i*g.n + 3: g.n may be 0
		{"a method index over a row", "", "for j := range g.n { a[g.at(i, j)] = 1 }", 0}, // g.n 0: nothing written
		{"a folding method index", "", "a[g.half(i)] = 1", 2},
		{"an index function reading memory", "", "a[pick(i)] = 1", 2},
		{"a fixed call", "", "a[at(0, 1)] = i", 2},
		{"a call CAPE does not read", "", "a[long(i)] = 1", 0},
		{"a call inside the base", "", "[][]int{a}[f(i)][0] = 1", 0},
		{"min with a constant", "", "a[min(i, 5)] = 1", 2},
		{"min of two that follow it", "", "a[min(i, 2*i)] = 1", 0},
		{"a float conversion", "", "a[int(float64(i)*0.5)] = 1", 2},
		{"a call into an array", "", "var h [4]int; h[f(i)] = 1; a[i] = h[0]", 0},
		{"the iteration's own memory", "", "var h [4]int; h[p[i]%4] = 1; a[i] = h[0]", 0},
		{"an inner loop without a condition", "", "for j := 0; ; j++ { if j >= 4 { break }; a[i*4+j] = 1 }", 0},
		{"an inner counter's places, every iteration", "", "for j := 0; j < 4; j++ { p[j] = i }", 2},
		{"folding the loop variable", "", "a[i/2] = i", 2},
		// Windows wider than the loop variable's stride overlap: marked.
		{"a row of its stride", "", "for j := 0; j < 4; j++ { a[i*4+j] = 1 }", 0},
		{"a row one wider than its stride", "", "for j := 0; j <= 4; j++ { a[i*4+j] = 1 }", 2},
		{"a window over the next elements", "", "for j := range 3 { a[i+j] = 1 }", 2},
		{"a narrowing conversion", "", "a[uint8(i*20)] = 1", 2},
		{"a narrowing conversion that keeps the loop's values", "", "a[uint8(i)] = 1", 0},
		{"a widening conversion", "", "a[int64(i)] = 1", 0},
		{"a multiplier defined as 0", "", "z := 0; a[i*z] = 1", 2},
		// Two writes one stride apart: iterations i and i+1 share one.
		{"two writes one stride apart", "", "a[i+1] = 7; a[i] = 0", 4},
		{"a pair of its own", "", "a[2*i] = 7; a[2*i+1] = 0", 0},
		{"the package's own getter, one place", "", "bx.vs()[0] = i", 2},
		{"the package's own getter, the iteration's place", "", "bx.vs()[i] = 1", 0},
		{"a pair of its own, stepping by 2", "", "/*step 2*/ if a[i] > a[i+1] { a[i], a[i+1] = a[i+1], a[i] }", 0},
		{"a window wider than its stride, held in a variable", "", "w := 5; for j := 0; j < w; j++ { a[i*4+j] = 1 }", 2},
		{"a width whose address is taken", "", "w := 5; fmt.Sscan(\"3\", &w); for j := 0; j < w; j++ { a[i*4+j] = 1 }", 0},
		// The writes of one body to one array, read as coef·i + a window
		// (overlap.go): marked where two iterations may reach one element.
		{"a write one stride past a window", "", "a[i*4+4] = 7; for j := 0; j < 4; j++ { a[i*4+j] = 0 }", 4},
		{"a write before a window", "", "a[i*4] = 7; for j := 1; j < 4; j++ { a[i*4+j] = 0 }", 0},
		{"a window wider than a field stride", "", "for j := 0; j <= g.n; j++ { a[i*g.n+j] = 1 }", 2},
		{"a row of a field stride", "", "for j := 0; j < g.n; j++ { a[i*g.n+j] = 1 }", 0},
		{"a stencil's interior", "", "for j := 1; j < g.n-1; j++ { a[i*g.n+j] = 1 }", 0},
		{"a cube's rows", "", "for j := 0; j < g.n; j++ { for k := range g.n { a[(i*g.n+j)*g.n+k] = 1 } }", 0},
		{"a window bound one past a variable stride", "", "s := g.n; w := s + 1; for j := 0; j < w; j++ { a[i*s+j] = 1 }", 2},
		{"a window bound of a variable stride", "", "s := g.n; w := s; for j := 0; j < w; j++ { a[i*s+j] = 1 }", 0},
		{"a window bound in another variable", "", "s := g.n; for j := 0; j < len(p); j++ { a[i*s+j] = 1 }", 0},
		{"an index function over a wider window", "", "for j := 0; j <= 4; j++ { a[at(i, j)] = 1 }", 2},
		{"an index function with a constant over a wider window", "", "for j := 0; j <= wd; j++ { a[atw(i, j)] = 1 }", 2},
		{"an index function with a constant over its row", "", "for j := 0; j < wd; j++ { a[atw(i, j)] = 1 }", 0},
		{"a method index over a wider window", "", "for j := 0; j <= g.n; j++ { a[g.at(i, j)] = 1 }", 2},
		{"a method index over its row", "", "for j := 0; j < g.n; j++ { a[g.at(i, j)] = 1 }", 0},
		{"an index closure over a wider window", "", "at2 := func(i, j int) int { return i*4 + j }; for j := 0; j <= 4; j++ { a[at2(i, j)] = 1 }", 2},
		{"an index closure over its row", "", "at2 := func(i, j int) int { return i*4 + j }; for j := 0; j < 4; j++ { a[at2(i, j)] = 1 }", 0},
		{"a copy longer than its stride", "", "copy(a[i*4:], []int{0, 7, 7, 7, 7})", 2},
		{"a copy of its stride", "", "copy(a[i*4:], []int{0, 7, 7, 7})", 0},
		{"a copy into its row", "", "copy(a[i*4:i*4+4], p)", 0},
		{"a copy into a wider row", "", "copy(a[i*4:i*4+5], p)", 2},
		{"a multiplier from a function", "", "z := zero(); a[i*z] = 1", 2},
		{"a multiplier that is a difference", "", "z := g.n - g.n; a[3+i*z] = 1", 2},
		{"a field multiplier", "", "a[i*g.n] = 1", 2},
		{"an xor partner", "", "a[i] = 7; a[i^8] = 0", 4},
		{"an xor alone", "", "a[i^8] = 1", 0},
		{"a mirror write", "", "a[g.n-1-i] = 7; a[i] = 0", 4},
		{"a mirror alone", "", "a[15-i] = 1", 0},
		{"two places moving apart", "", "a[i] = 7; a[2*i] = 0", 4},
		{"two arrays", "", "a[i] = 7; p[15-i] = 0", 0},
	}
	cfg := &Config{Importer: testImporter(t)}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := hintHead + "func f(i int) int { return i % 4 }\n\nfunc at(i, j int) int { return i*4 + j }\n\n" +
				"type grid struct{ n int }\n\nfunc (g *grid) at(i, j int) int { return i*g.n + j }\n\nfunc (g *grid) half(i int) int { return i / 2 }\n\n" +
				"var perm = []int{3, 2, 1, 0}\n\nfunc pick(i int) int { return perm[i%4] }\n\nfunc zero() int { return 0 }\n\nconst wd = 4\n\nfunc atw(i, j int) int { return i*wd + j }\n\nfunc long(i int) int {\n\tk := i\n\treturn k\n}\n\nvar g = &grid{n: 4}\n\n" +
				"type box struct{ vals []int }\n\nfunc (b *box) vs() []int { return b.vals }\n\n" +
				"func main() {\n\ta := make([]int, 64)\n\tp := make([]int, 16)\n\tbx := &box{vals: make([]int, 16)}\n\t_ = bx\n" +
				"\t//cape:parallel for " + c.clauses + "\n\tfor i := 0; i < 16; i += " + step(c.body) + " {\n\t\t" + c.body + "\n\t}\n\tfmt.Println(a, p)\n}\n"
			out, err := translateMain(t, cfg, src)
			if err != nil {
				t.Fatalf("translate: %v\n%s", err, src)
			}
			if got := strings.Count(out, ".Mark(") + strings.Count(out, ".MarkAt(") + strings.Count(out, ".MarkN("); got != c.marks {
				t.Errorf("%d Mark calls, want %d:\n%s", got, c.marks, out)
			}
			if want := c.marks > 0; strings.Contains(out, ".MarkWrites()") != want {
				t.Errorf("MarkWrites %v, want %v", !want, want)
			}
		})
	}
}

// TestCalleeMarks checks which writes of called functions are marked where
// they stand (cape.MarkCallee): one place in every iteration, reached
// through an argument or receiver that is not the iteration's own, or
// captured; not a place the arguments make the iteration's own.
func TestCalleeMarks(t *testing.T) {
	cases := []struct {
		name, body string
		marks      int
	}{
		{"a fixed element through an argument", "set0(a, i)", 1},
		{"the iteration's row", "set0(rows[i], i)", 0},
		{"an element the argument picks", "setAt(a, i, i)", 0},
		{"a receiver's field", "n.put(i)", 1},
		{"an iteration's own receiver", "ns[i].put(i)", 0},
		{"a captured slice", "keep(i)", 1},
		{"an index read from memory", "scatter(a, p, i)", 1},
		{"an index read from memory, the iteration's row", "scatter(rows[i], p, i)", 0},
		{"a read through a call", "p[i] = get0(a)", 0},
	}
	cfg := &Config{Importer: testImporter(t)}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := hintHead + `type note struct{ last int }

func (n *note) put(v int)             { n.last = v }
func set0(b []int, v int)             { b[0] = v }
func setAt(b []int, k, v int)         { b[k] = v }
func get0(b []int) int                { return b[0] }
func scatter(b, idx []int, k int)     { b[idx[k]%4] = k }

func main() {
	a := make([]int, 64)
	rows := make([][]int, 16)
	for i := range rows {
		rows[i] = make([]int, 4)
	}
	n := &note{}
	ns := make([]note, 16)
	p := make([]int, 16)
	keep := func(v int) { a[1] = v }
	//cape:parallel for
	for i := 0; i < 16; i++ {
		` + c.body + `
	}
	fmt.Println(a, rows, n, ns, keep, p)
}
`
			out, err := translateMain(t, cfg, src)
			if err != nil {
				t.Fatalf("translate: %v\n%s", err, src)
			}
			if got := strings.Count(out, ".MarkCallee("); got != c.marks {
				t.Errorf("%d MarkCallee calls, want %d:\n%s", got, c.marks, out)
			}
			if want := c.marks > 0; strings.Contains(out, ".MarkWrites()") != want {
				t.Errorf("MarkWrites %v, want %v", !want, want)
			}
		})
	}
}
