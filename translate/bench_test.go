package translate

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// benchPackage generates an annotated package of about lines lines.
func benchPackage(lines int) []byte {
	var b strings.Builder
	b.WriteString("package main\n\nimport \"fmt\"\n\n")
	fn := 0
	for strings.Count(b.String(), "\n") < lines-20 {
		fmt.Fprintf(&b, `func kernel%d(n int) float64 {
	a := make([]float64, n)
	var hist [8]int64
	sum := 0.0
	//cape:parallel for schedule(dynamic, 4) reduction(+:sum)
	for i := 0; i < n; i++ {
		a[i] = float64(i) * 0.5
		sum += a[i]
	}
	//cape:parallel sections
	{
		//cape:section
		{
			hist[0] = int64(n)
		}
		//cape:section
		{
			hist[1] = 2
		}
	}
	return sum + float64(hist[0])
}

`, fn)
		fn++
	}
	b.WriteString("func main() {\n")
	for i := range fn {
		fmt.Fprintf(&b, "\tfmt.Println(kernel%d(100))\n", i)
	}
	b.WriteString("}\n")
	return []byte(b.String())
}

// BenchmarkTranslate1000Lines translates a generated 1,000-line package
// with 80 regions: parse, type-check (imports already resolved), analyze,
// rewrite, format.
func BenchmarkTranslate1000Lines(b *testing.B) {
	src := benchPackage(1000)
	path := filepath.Join("testdata", "bench_generated.go")
	cfg := &Config{Importer: testImporter(b)}
	res, err := cfg.Files("testdata", []string{path}, map[string][]byte{path: src})
	if err != nil {
		b.Fatal(err)
	}
	if res.Regions < 50 {
		b.Fatalf("only %d regions", res.Regions)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cfg.Files("testdata", []string{path}, map[string][]byte{path: src}); err != nil {
			b.Fatal(err)
		}
	}
}
