package translate

import "testing"

// TestOneGoroutineRunsRegions checks that a single goroutine running the
// program's regions while main waits for it is accepted (err_goroutines.go
// has the concurrent cases, refused).
func TestOneGoroutineRunsRegions(t *testing.T) {
	src := "package main\n\nimport (\n\t\"fmt\"\n\t\"sync\"\n)\n" + `
func compute(out []int) {
	//cape:parallel for
	for i := range out {
		out[i] = i * i % 97
	}
}

func main() {
	out := make([]int, 1000)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		compute(out)
	}()
	wg.Wait()
	fmt.Println(out[999])
}
`
	if _, err := translateMain(t, &Config{Importer: testImporter(t)}, src); err != nil {
		t.Fatalf("refused: %v", err)
	}
}
