package translate

import (
	"regexp"
	"testing"
)

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

// TestGoroutinePrints checks printsInGoroutines on whole programs:
// a goroutine that writes to standard output is accepted where no region
// can run while it does (err_goroutine_prints.go has the shapes within
// one program).
func TestGoroutinePrints(t *testing.T) {
	head := "package main\n\nimport (\n\t\"fmt\"\n\t\"log\"\n\t\"os\"\n\t\"sync\"\n)\n" + `
var _, _, _, _ = fmt.Sprint, log.Println, os.Stdout, sync.OnceFunc

func fill(a []int, k int) {
	//cape:parallel for
	for i := range a {
		a[i] = i * k
	}
}
`
	cases := []struct {
		name, main string
		refused    string // a part of the message, "" where accepted
	}{
		{"started after the last region", `
	a := make([]int, 64)
	for k := range 3 {
		fill(a, k)
	}
	done := make(chan bool)
	go func() { fmt.Println(a[63]); done <- true }()
	<-done`, ""},
		{"in the loop of the regions", `
	a := make([]int, 64)
	done := make(chan bool)
	for k := range 3 {
		go func() { fmt.Println(k); done <- true }()
		fill(a, k)
		<-done
	}`, "fmt.Println at main.go:23. and may still run while a parallel region runs .main.go:24."},
		{"log sent to standard output", `
	log.SetOutput(os.Stdout)
	a := make([]int, 64)
	go log.Println("started")
	fill(a, 1)`, "log.Println at main.go:22"},
		{"log to standard error", `
	a := make([]int, 64)
	go log.Println("started")
	fill(a, 1)`, ""},
		{"a function value that writes", `
	a := make([]int, 64)
	f := func() { fmt.Println("hi") }
	go f()
	fill(a, 1)`, "a call of f at main.go:22, which may write"},
		{"a goroutine started by the goroutine", `
	a := make([]int, 64)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		go fmt.Println("inner")
	}()
	wg.Wait()
	fill(a, 1)`, "main.go:25:3: this goroutine writes to standard output .fmt.Println at main.go:25."},
		{"a goroutine that waits for the one it starts", `
	a := make([]int, 64)
	go func() {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); fmt.Println("inner") }()
		wg.Wait()
	}()
	fill(a, 1)`, "main.go:21:2: this goroutine writes to standard output .fmt.Println at main.go:24. and may still run while a parallel region runs .main.go:27."},
		{"started by a function main calls", `
	a := make([]int, 64)
	start()
	fill(a, 1)
}

func start() {
	go fmt.Println("from start")`, "main.go:26:2: this goroutine writes to standard output .fmt.Println at main.go:26. and may still run while a parallel region runs .main.go:14."},
		{"while another goroutine runs the regions", `
	a := make([]int, 64)
	done := make(chan bool)
	go func() { fill(a, 1); close(done) }()
	go fmt.Println("meanwhile")
	<-done`, "main.go:23:2: this goroutine writes to standard output .fmt.Println at main.go:23. and may still run while a parallel region runs .main.go:22."},
		{"after the wait for the goroutine of the regions", `
	a := make([]int, 64)
	done := make(chan bool)
	go func() { fill(a, 1); close(done) }()
	<-done
	go fmt.Println("after")`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := head + "\nfunc main() {" + c.main + "\n}\n"
			_, err := translateMain(t, &Config{Importer: testImporter(t)}, src)
			switch {
			case c.refused == "" && err != nil:
				t.Fatalf("refused: %v\n%s", err, src)
			case c.refused != "" && err == nil:
				t.Fatalf("accepted, want refused with %q:\n%s", c.refused, src)
			case c.refused != "" && !regexp.MustCompile(c.refused).MatchString(err.Error()):
				t.Fatalf("error %v, want %q", err, c.refused)
			}
		})
	}
}
