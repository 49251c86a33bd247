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
	// Joined by a channel the goroutine closes last, with a region in
	// main after the join.
	src = "package main\n\nimport \"fmt\"\n" + `
func main() {
	out := make([]int, 1000)
	done := make(chan bool)
	go func() {
		//cape:parallel for
		for i := range out {
			out[i] = i * i % 97
		}
		close(done)
	}()
	<-done
	//cape:parallel for
	for i := range out {
		out[i]++
	}
	fmt.Println(out[999])
}
`
	if _, err := translateMain(t, &Config{Importer: testImporter(t)}, src); err != nil {
		t.Fatalf("joined by <-done: refused: %v", err)
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
	cases := []programCase{
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
	<-done`, "main.go:23:5: fmt.Println at main.go:23 writes to standard output while the goroutine started at main.go:22 may run a parallel region .main.go:22."},
		{"after the wait for the goroutine of the regions", `
	a := make([]int, 64)
	done := make(chan bool)
	go func() { fill(a, 1); close(done) }()
	<-done
	go fmt.Println("after")`, ""},
	}
	checkPrograms(t, head, cases)
}

// besideHead is the start of TestPrintsBesideRegions' programs.
const besideHead = "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\t\"sync\"\n)\n" + `
var _, _, _ = fmt.Sprint, os.Stdout, sync.OnceFunc

func fill(a []int, k int) {
	//cape:parallel for
	for i := range a {
		a[i] = i * k
	}
}

func run(a []int, done chan<- int) {
	for k := range 3 {
		fill(a, k)
	}
	done <- a[63]
}

type sim struct {
	a    []int
	done chan int
}

func (s *sim) run() {
	fill(s.a, 2)
	s.done <- s.a[63]
}
`

// TestPrintsBesideRegions checks printsBesideRegions: the code that starts
// the goroutine running the regions may not write to standard output
// before it waits for that goroutine (a region's standard output is
// forwarded from every node, whichever goroutine wrote it).
func TestPrintsBesideRegions(t *testing.T) {
	head := besideHead
	cases := []programCase{
		{"main prints while the goroutine runs the regions", `
	a := make([]int, 64)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for k := range 3 {
			fill(a, k)
		}
	}()
	for r := range 3 {
		fmt.Println("step", r)
	}
	wg.Wait()`, `main.go:46:3: fmt.Println at main.go:46 writes to standard output while the goroutine started at main.go:39 may run a parallel region \(main.go:42\)`},
		{"main prints after the wait", `
	a := make([]int, 64)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		fill(a, 1)
	}()
	wg.Wait()
	fmt.Println(a[63])`, ""},
		{"a deferred write, the goroutine waited for", `
	a := make([]int, 64)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		fill(a, 1)
	}()
	defer fmt.Println("end")
	wg.Wait()`, ""},
		{"a write through os.Stdout before the receive", `
	a := make([]int, 64)
	done := make(chan struct{})
	go func() {
		fill(a, 1)
		close(done)
	}()
	fmt.Fprintln(os.Stdout, "waiting")
	<-done`, "main.go:42:18: a use of os.Stdout at main.go:42 writes to standard output while the goroutine started at main.go:38"},
		{"a function given the channel it sends on last, received", `
	a := make([]int, 64)
	done := make(chan int)
	go run(a, done)
	fmt.Println(<-done)`, ""},
		{"a method sending on its receiver's channel last, received", `
	s := &sim{a: make([]int, 64), done: make(chan int)}
	go s.run()
	fmt.Println("total", <-s.done)`, ""},
		{"a write before the receive from the function's channel", `
	a := make([]int, 64)
	done := make(chan int)
	go run(a, done)
	fmt.Println("started")
	fmt.Println(<-done)`, "main.go:39:2: fmt.Println at main.go:39 writes to standard output while the goroutine started at main.go:38"},
		{"a receive of a value the goroutine sends between its regions", `
	a := make([]int, 64)
	res := make(chan int)
	go func() {
		for k := range 3 {
			fill(a, k)
			res <- a[63]
		}
		close(res)
	}()
	for v := range res {
		fmt.Println(v)
	}`, "main.go:46:3: fmt.Println at main.go:46 writes"},
	}
	checkPrograms(t, head, cases)
}

// A programCase is a main function's body (it may close main and add
// functions) and what its translation must give.
type programCase struct {
	name, main string
	refused    string // a pattern of the error, "" where accepted
}

// checkPrograms translates head followed by each case's main.
func checkPrograms(t *testing.T, head string, cases []programCase) {
	t.Helper()
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
