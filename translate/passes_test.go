package translate

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// indexed returns the translator of the package made of the files at
// paths (src supplies their contents when not nil), type-checked and
// indexed: the passes that run before findRegionCode have run.
func indexed(t *testing.T, paths []string, src map[string][]byte) *translator {
	t.Helper()
	fset := token.NewFileSet()
	p, diags, err := parseFiles(fset, paths, src)
	if err != nil || len(diags) > 0 {
		t.Fatalf("parse: %v %v", err, diags)
	}
	if diags := p.check(testImporter(t)); len(diags) > 0 {
		t.Fatalf("type check: %v", diags)
	}
	tr := newTranslator(p)
	tr.index()
	return tr
}

// TestSoftTraceFindings checks that a soft trace reports nothing by itself
// and hands its caller what it would have reported: the outer slice of
// rows built by append stays on the Go heap, and the translation succeeds.
func TestSoftTraceFindings(t *testing.T) {
	const src = `package main

import "fmt"

func main() {
	var rows [][]float64
	for i := 0; i < 4; i++ {
		rows = append(rows, make([]float64, 4))
	}
	//cape:parallel for
	for i := 0; i < 4; i++ {
		rows[i][0] = float64(i)
	}
	fmt.Println(rows)
}
`
	tr := indexed(t, []string{"main.go"}, map[string][]byte{"main.go": []byte(src)})
	if len(tr.regions) != 1 {
		t.Fatalf("%d regions, want 1", len(tr.regions))
	}
	code, _ := tr.findRegionCode()
	a := tr.newAnalyzer(code)
	// The container of rows[i] in the region's write.
	var container *ast.Ident
	ast.Inspect(tr.regions[0].body, func(n ast.Node) bool {
		if ix, ok := n.(*ast.IndexExpr); ok {
			if id, ok := ix.X.(*ast.Ident); ok && id.Name == "rows" {
				container = id
			}
		}
		return true
	})
	if container == nil {
		t.Fatal("no rows[i] in the region")
	}
	found := softly(trace{}, func(tr trace) { a.needExpr(tr, container, "rows", container.Pos()) })
	if len(found) == 0 {
		t.Fatal("the soft trace of an outer slice built by append found nothing")
	}
	if !strings.Contains(found.Error(), "append") {
		t.Errorf("findings %q do not name append", found.Error())
	}
	if len(tr.diags) > 0 {
		t.Errorf("the soft trace reported %v", tr.diags)
	}
	// The same trace in the plain mode reports what it finds.
	a.needExpr(trace{}, container, "rows", container.Pos())
	if len(tr.diags) == 0 {
		t.Error("the plain trace of the same slice reported nothing")
	}

	// The whole translation discards the soft findings and succeeds.
	res, err := (&Config{Importer: testImporter(t)}).Files(".", []string{"main.go"}, map[string][]byte{"main.go": []byte(src)})
	if err != nil {
		t.Fatalf("translate: %v", err)
	}
	if !strings.Contains(string(res.Files["main.go"]), "cape.Make[float64]") {
		t.Errorf("the rows are not made in the arena:\n%s", res.Files["main.go"])
	}
}

// TestWalkFindingsReported checks why findRegionCode may drop the findings
// of its walk: every one of them, for every test input, is reported by the
// region analysis that follows.
func TestWalkFindingsReported(t *testing.T) {
	files, err := filepath.Glob("testdata/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test inputs: %v", err)
	}
	total := 0
	for _, file := range files {
		tr := indexed(t, []string{file}, nil)
		code, found := tr.findRegionCode()
		tr.analyze(code)
		reported := map[Diagnostic]bool{}
		for _, d := range tr.diags {
			reported[d] = true
		}
		for _, d := range found {
			total++
			if !reported[d] {
				t.Errorf("%s: the region walk found %v, which the analysis does not report", file, d)
			}
		}
	}
	if total == 0 {
		t.Error("no test input has a finding of the region walk: the check checks nothing")
	}
}

// TestFunctionLength holds the package to STYLE's limit: no function,
// test or not, over 100 lines.
func TestFunctionLength(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no sources: %v", err)
	}
	fset := token.NewFileSet()
	for _, file := range files {
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > 100 {
				t.Errorf("%s: %s is %d lines long, over 100", fset.Position(fd.Pos()), fd.Name.Name, n)
			}
		}
	}
}
