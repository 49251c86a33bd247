package translate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hintHead starts the program of every hint case.
const hintHead = "package main\n\nimport (\n\t\"fmt\"\n\t\"math\"\n)\n\nvar _ = fmt.Sprint\nvar _ = math.Abs\n\n"

// A hintCase is a body of main and what TestHints expects of it.
type hintCase struct {
	name   string
	body   string
	bounds string // "" none; "nil" writes nothing; else the WritesIn lines' slices, comma-separated
	loop   bool
}

// hintCases are TestHints' cases.
var hintCases = []hintCase{
	{name: "stencil", body: `
n := 16
u := make([]float64, n*n)
v := make([]float64, n*n)
var diff float64
for it := 0; it < 10; it++ {
	diff = 0
	//cape:parallel for reduction(max:diff)
	for i := 1; i < n-1; i++ {
		for j := 1; j < n-1; j++ {
			k := i*n + j
			x := 0.25 * (u[k-n] + u[k+n] + u[k-1] + u[k+1])
			diff = max(diff, math.Abs(x-u[k]))
			v[k] = x
		}
	}
	u, v = v, u
}
fmt.Println(u[n+1], diff)`, bounds: "v", loop: true},
	{name: "fields and arrays of elements", body: `
type p struct{ x, y [2]float64 }
ps := make([]p, 8)
qs := make([]int, 8)
for it := range 3 {
	//cape:parallel for
	for i := range 8 {
		ps[i].y[1] = float64(i + it)
		qs[i]++
	}
}
fmt.Println(ps, qs)`, bounds: "ps,qs", loop: true},
	{name: "a call in the body", body: `
a := make([]int, 8)
for it := range 3 {
	//cape:parallel for
	for i := range 8 {
		a[i] = it
		set(a, i)
	}
}
fmt.Println(a)`, loop: true},
	{name: "a print in the gap", body: `
a := make([]int, 8)
for it := range 3 {
	//cape:parallel for
	for i := range 8 {
		a[i] = it + i
	}
	fmt.Println(a[0])
}`, bounds: "a"},
	{name: "an element written in the gap", body: `
a := make([]int, 8)
for it := range 3 {
	//cape:parallel for
	for i := range 8 {
		a[i] += i
	}
	a[0] = it
}
fmt.Println(a)`, bounds: "a"},
	{name: "two regions in the loop", body: `
a := make([]int, 8)
b := make([]int, 8)
for it := range 3 {
	//cape:parallel for
	for i := range 8 {
		a[i] += i + it
	}
	//cape:parallel for
	for i := range 8 {
		b[i] += a[i]
	}
}
fmt.Println(a, b)`, bounds: "a b", loop: true},
	{name: "a second region under an if in the loop", body: `
a := make([]int, 8)
b := make([]int, 8)
for it := range 3 {
	//cape:parallel for
	for i := range 8 {
		a[i] += i + it
	}
	if it > 0 {
		//cape:parallel for
		for i := range 8 {
			b[i] += a[i]
		}
	}
}
fmt.Println(a, b)`, bounds: "a b"},
	{name: "two regions, an arena write between them", body: `
a := make([]int, 8)
b := make([]int, 8)
for it := range 3 {
	//cape:parallel for
	for i := range 8 {
		a[i] += i + it
	}
	b[0] = it
	//cape:parallel for
	for i := range 8 {
		b[i] += a[i]
	}
}
fmt.Println(a, b)`, bounds: "a b"},
	{name: "a slice of the body aliases shared rows", body: `
n := 4
g := make([]float64, n*n)
for it := range 3 {
	//cape:parallel for
	for i := range n {
		row := g[i*n : (i+1)*n]
		row[0] = float64(it)
	}
}
fmt.Println(g)`, loop: true},
	{name: "a shared scalar written", body: `
a := make([]int, 8)
found := false
//cape:parallel for shared(found)
for i := range 8 {
	if a[i] == 0 {
		found = true
	}
}
fmt.Println(found)`},
	{name: "lastprivate", body: `
a := make([]int, 8)
last := 0
//cape:parallel for lastprivate(last)
for i := range 8 {
	a[i] = i
	last = i
}
fmt.Println(a, last)`},
	{name: "reductions only", body: `
a := make([]int, 8)
s := 0
//cape:parallel for reduction(+:s)
for i := range 8 {
	s += a[i]
}
fmt.Println(s)`, bounds: "nil"},
	{name: "a closure in the body", body: `
a := make([]int, 8)
//cape:parallel for
for i := range 8 {
	f := func() int { return i }
	a[i] = f()
}
fmt.Println(a)`},
	{name: "a pointer taken in the gap", body: `
a := make([]int, 8)
x := 0
for it := range 3 {
	p := &x
	*p = it
	//cape:parallel for
	for i := range 8 {
		a[i] = i
	}
}
fmt.Println(a, x)`, bounds: "a"},
	{name: "a range over a function of the program", body: `
a := make([]int, 8)
seq := func(yield func(int) bool) {
	a[0]++
	for i := range 8 {
		if !yield(i) {
			return
		}
	}
}
for it := range 3 {
	//cape:parallel for
	for i := range 8 {
		for j := range seq {
			a[i] += j + it
		}
	}
}
fmt.Println(a)`, loop: true},
	{name: "a goroutine in the package", body: `
a := make([]int, 8)
done := make(chan bool)
go func() { done <- true }()
<-done
for it := range 3 {
	//cape:parallel for
	for i := range 8 {
		a[i] += it
	}
}
fmt.Println(a)`, bounds: "a"},
}

// TestHints checks what the translator proves about regions (hint.go):
// the writes' bounds (cape.WritesIn) and clean loops (InLoop), and above
// all that a region or loop that may write elsewhere gets no hint.
func TestHints(t *testing.T) {
	cfg := &Config{Importer: testImporter(t)}
	for _, c := range hintCases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "main.go")
			src := hintHead + "func set(a []int, i int) { a[i] = -i }\n\nfunc main() {" + c.body + "\n}\n"
			if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := cfg.Files(dir, []string{file}, nil)
			if err != nil {
				t.Fatalf("translate: %v", err)
			}
			out := string(res.Files[file])
			typeCheck(t, file, []byte(out))
			var got []string
			for _, line := range strings.Split(out, "\n") {
				line = strings.TrimSpace(line)
				if s, ok := strings.CutPrefix(line, "cape.WritesIn(r, "); ok {
					got = append(got, strings.TrimSuffix(s, ")"))
				}
				if strings.HasPrefix(line, "cape.WritesIn[byte](r, nil)") {
					got = append(got, "nil")
				}
			}
			want := c.bounds
			if strings.Contains(want, " ") {
				want = strings.ReplaceAll(want, " ", ",") // two regions
			}
			if g := strings.Join(got, ","); g != want {
				t.Errorf("bounds %q, want %q:\n%s", g, want, out)
			}
			if loop := strings.Contains(out, ".InLoop(") && strings.Contains(out, ".NewLoop()"); loop != c.loop {
				t.Errorf("clean loop %v, want %v:\n%s", loop, c.loop, out)
			}
		})
	}
}
