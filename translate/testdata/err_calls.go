package main

import (
	"container/heap"
	"fmt"
	"io"
	"math/rand"
	"os"
	"sort"
	"strings"
)

// Calls whose code or memory CAPE cannot bound are refused.

type job struct{ run func(int) }

type named interface{ String() string }

type label []byte

func (l label) String() string { l[0] = 'x'; return string(l) }

type minHeap []int

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(int)) } // want "\\*h is written through in the parallel region at err_calls.go:[0-9]+, but its memory comes from an expression here"
func (h *minHeap) Pop() any          { return 0 }

type vec []float64

func (v vec) set(i int) { v[i] = 1 }

func produce(ch chan int, i int) { ch <- i } // want "channel ch is sent to, received from or closed in a parallel region \\(called from the parallel region at err_calls.go:[0-9]+\\)"

func visit(n int, f func(int)) {
	//cape:parallel for
	for i := 0; i < n; i++ {
		f(i)
	}
}

func main() {
	n := 8
	out := make([]float64, n)
	j := job{run: func(i int) { out[i] = 1 }}
	table := map[string]func(int){"a": func(i int) { out[i] = 2 }}
	table["b"] = func(i int) { out[i] = 4 } // a table written: its elements are not only its literal's
	var name named = label(make([]byte, 4))
	rng := rand.New(rand.NewSource(1))
	draw := rng.Float64
	var viaPtr func(int)
	p := &viaPtr
	*p = func(i int) { out[i] = 3 }
	h := &minHeap{1, 2}
	v := &vec{}
	words := strings.Fields("b a") // want "words is written through in the parallel region at err_calls.go:[0-9]+, but its memory comes from a call of [a-zA-Z.]+ \\(another package's function\\) here"
	var anyOut any = out
	stderr := io.MultiWriter(os.Stderr)
	byLit := func(f func(int)) { f(0) } // want "cannot tell which function f runs .* f, a parameter of a function literal that is byLit, which is used at err_calls.go:[0-9]+ other than by calling it"
	hooks := []func(func(int)){byLit}
	escaped := func(dst []float64, i int) { dst[i] = 6 } // want "dst is written through in the parallel region at err_calls.go:[0-9]+, but it is a parameter of a function literal that is escaped, which is used at err_calls.go:[0-9]+ other than by calling it"
	//cape:parallel for
	for i := 0; i < n; i++ {
		j.run(i)          // want "cannot tell which function j.run runs in the parallel region: its function value comes from field j.run"
		table["a"](i)     // want "cannot tell which function table\\[\"a\"\\] runs in the parallel region: its function value comes from an element of table"
		_ = name.String() // want "cannot tell which function name.String runs in the parallel region: its function value comes from a method of named, which [a-z/]+\\.[A-Za-z]+ implements too"
		out[i] = draw()   // want "cannot tell which function draw runs in the parallel region: its function value comes from method value rng.Float64 of another package's type"
		viaPtr(i)         // want "cannot tell which function viaPtr runs .* viaPtr, whose address is taken here"
		heap.Init(h)      // want "heap.Init may write through the slices or pointers that h holds" "h is written through in the parallel region at err_calls.go:[0-9]+, but an element of type main.minHeap may be set here by heap.Init"
		fmt.Fprintln(os.Stderr, i)
		sort.Strings(words)
		sort.Slice(anyOut, func(a, b int) bool { return a < b }) // want "sort.Slice may write through the interface value anyOut"
		fmt.Fprintln(stderr, i)                                  // want "fmt.Fprintln may write through the interface value stderr"
		fmt.Println(anyOut, i)
		byLit(func(i int) { out[i] = 5 })
		escaped(out, i)
		v.set(i) // want "v is written through in the parallel region at err_calls.go:[0-9]+, but set receives here a copy of the value v points to"
	}
	visit(n, func(i int) { out[i] = 4 })
	results := make(chan int, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		results <- i        // want "channel results is sent to, received from or closed in a parallel region: each node would see only its own share"
		produce(results, i) // want "channel results is sent to"
		local := make(chan int, 1)
		local <- i
		out[i] = float64(<-local)
	}
	total := 0.0
	add := func(v float64) { total += v } // want "total is in the reduction clause of the parallel region at err_calls.go:[0-9]+, but this code, called from the region, uses the variable itself"
	//cape:parallel for reduction(+:total)
	for i := 0; i < n; i++ {
		add(out[i])
	}
	flag := 0
	setFlag := func() { flag = 1 } // want "flag is assigned in section 0 and used in section 1"
	//cape:parallel sections
	{
		//cape:section
		{
			setFlag()
		}
		//cape:section
		{
			fmt.Println(flag)
		}
	}
	fmt.Println(out, total, len(hooks), escaped)
}

func visitor() func(int) { return nil }

func other(n int, f func(func(int))) {
	g := visitor()
	//cape:parallel for
	for i := 0; i < n; i++ {
		f(func(int) {}) // want "cannot tell which function f runs .* f, a parameter of other, which is used as a function value"
		g(i)
	}
}

var hook = other

// factories calls the function values that a function literal returns:
// followed into the literal they return, and what it writes is judged.
func factories(n int) {
	out := make([]int, n)
	hits := 0
	scale := func(k int) func(int) int {
		return func(x int) int { return x * k }
	}
	count := func(k int) func(int) int {
		return func(x int) int { hits++; return x * k } // want "hits is assigned in iterations of the parallel loop"
	}
	//cape:parallel for
	for i := 0; i < n; i++ {
		out[i] = scale(3)(i) + count(2)(i)
	}
	fmt.Println(out[n-1], hits)
}
