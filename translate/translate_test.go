package translate

import (
	"bytes"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the .golden files")

var (
	impOnce sync.Once
	imp     types.Importer
	impErr  error
)

// testImporter resolves the imports of every test input and of the cape
// runtime, with one go list run for the whole test binary.
func testImporter(t testing.TB) types.Importer {
	t.Helper()
	impOnce.Do(func() {
		paths := map[string]bool{capePath: true}
		files, _ := filepath.Glob("testdata/*.go")
		fset := token.NewFileSet()
		for _, f := range files {
			af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
			if err != nil {
				continue
			}
			for _, s := range af.Imports {
				p, _ := strconv.Unquote(s.Path.Value)
				paths[p] = true
			}
		}
		for _, p := range []string{"fmt", "os", "math", "flag", "time"} {
			paths[p] = true
		}
		var list []string
		for p := range paths {
			list = append(list, p)
		}
		sort.Strings(list)
		imp, impErr = exportImporter(token.NewFileSet(), ".", list)
	})
	if impErr != nil {
		t.Fatal(impErr)
	}
	return imp
}

var (
	wantRE   = regexp.MustCompile(`// want((?: +"(?:[^"\\]|\\.)*")+)`)
	warnRE   = regexp.MustCompile(`// warn((?: +"(?:[^"\\]|\\.)*")+)`)
	quotedRE = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
)

// wants returns the expected diagnostics of a test input: line → regexps.
func wants(t *testing.T, src []byte) map[int][]*regexp.Regexp {
	return expectations(t, src, wantRE)
}

// expectations returns the regexps of the comments re matches: line →
// regexps.
func expectations(t *testing.T, src []byte, re *regexp.Regexp) map[int][]*regexp.Regexp {
	out := map[int][]*regexp.Regexp{}
	for i, line := range strings.Split(string(src), "\n") {
		for _, m := range re.FindAllStringSubmatch(line, -1) {
			for _, q := range quotedRE.FindAllString(m[1], -1) {
				pat, err := strconv.Unquote(q)
				if err != nil {
					t.Fatalf("line %d: bad want: %v", i+1, err)
				}
				out[i+1] = append(out[i+1], regexp.MustCompile(pat))
			}
		}
	}
	return out
}

// TestGolden translates every testdata/*.go file. Files with // want
// comments must fail with exactly those diagnostics; the others must
// translate to their .golden file, which must parse and type-check against
// the real cape runtime.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test inputs: %v", err)
	}
	cfg := &Config{Importer: testImporter(t)}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".go")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want := wants(t, src)
			res, err := cfg.Files("testdata", []string{file}, nil)
			if len(want) > 0 {
				checkDiagnostics(t, file, err, want)
				return
			}
			if err != nil {
				t.Fatalf("translate: %v", err)
			}
			checkDiagnostics(t, file, res.Warnings, expectations(t, src, warnRE))
			out := res.Files[file]
			if out == nil {
				t.Fatalf("no translation for %s", file)
			}
			// Line directives name files by absolute path; the golden
			// files hold them relative to this directory.
			abs, err := filepath.Abs("testdata")
			if err != nil {
				t.Fatal(err)
			}
			got := bytes.ReplaceAll(out, []byte(abs+string(filepath.Separator)), []byte("testdata/"))
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			exp, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if !bytes.Equal(got, exp) {
				t.Errorf("translation differs from %s (run go test -update and review the diff):\n%s", golden, got)
			}
			typeCheck(t, file, out)
		})
	}
}

func checkDiagnostics(t *testing.T, file string, err error, want map[int][]*regexp.Regexp) {
	t.Helper()
	var list ErrorList
	if err == nil {
		t.Fatalf("translation succeeded, want errors")
	}
	if l, ok := err.(ErrorList); ok {
		list = l
	} else {
		t.Fatalf("error %v is not an ErrorList", err)
	}
	matched := map[*regexp.Regexp]bool{}
	for _, d := range list {
		if d.Pos.Filename != file {
			t.Errorf("unexpected diagnostic in another file: %v", d)
			continue
		}
		ok := false
		for _, re := range want[d.Pos.Line] {
			if re.MatchString(d.Msg) {
				matched[re], ok = true, true
			}
		}
		if !ok {
			t.Errorf("unexpected diagnostic: %v", d)
		}
	}
	for line, res := range want {
		for _, re := range res {
			if !matched[re] {
				t.Errorf("%s:%d: no diagnostic matching %q", file, line, re)
			}
		}
	}
}

// typeCheck parses and type-checks a translation against the cape runtime,
// so the generated code is valid Go for the real API.
func typeCheck(t *testing.T, file string, src []byte) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ParseComments)
	if err != nil {
		t.Fatalf("translation does not parse: %v", err)
	}
	if !strings.HasPrefix(string(src), "// Code generated by cape. DO NOT EDIT.\n") {
		t.Errorf("translation lacks the generated-code header")
	}
	conf := types.Config{Importer: testImporter(t)}
	if _, err := conf.Check("main", fset, []*ast.File{f}, nil); err != nil {
		t.Errorf("translation does not type-check: %v", err)
	}
}
