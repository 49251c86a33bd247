package main

import "fmt"

type grid struct {
	data []float64
}

var names = []string{"a", "b"} // want "names is written through in the parallel region at err_memory.go:34, but its memory comes from a composite literal here"

func apply(g func([]float64), x []float64) { g(x) }

func touch(x []float64) { x[0] = 1 } // want "x is written through in the parallel region at err_memory.go:13, but it is a parameter of touch, which is used as a function value"

func main() {
	n := 10
	m := map[int]float64{}
	lit := []float64{1, 2, 3} // want "lit is written through in the parallel region at err_memory.go:29, but its memory comes from a composite literal"
	var label string
	grow := make([]int, 0)
	g := grid{data: make([]float64, n)}
	g.data = append(g.data, 0) // want "field data \\(as in g.data\\) is written through in the parallel region at err_memory.go:31, but its memory comes from append"
	var ptrs [4]*int
	carried := 0
	//cape:parallel for
	for i := 0; i < n; i++ {
		m[i] = 1    // want "map m is written in a parallel region"
		label = "x" // want "label \\(string\\) is assigned in a parallel region, but a string cannot live in the arena"
		lit[i%3] = 2
		grow = append(grow, i) // want "grow \\(\\[\\]int\\) is assigned" "append to shared slice grow"
		g.data[i] = 1
		ptrs[i%4] = new(int) // want "an element of type \\*int \\(as in ptrs\\) is written through in the parallel region at err_memory.go:32 and is stored in shared memory, but it is made inside a parallel region"
		carried += i         // want "carried is assigned in iterations of the parallel loop, each node keeping its own value \\(a loop-carried dependence\\)"
		names[0] = "c"
		apply(touch, lit)
	}
	shared := 0
	//cape:parallel sections
	{
		//cape:section
		{
			shared = 1 // want "shared is assigned in section 0 and used in section 1"
		}
		//cape:section
		{
			fmt.Println(shared)
		}
	}
	fmt.Println(m, label, grow, g, ptrs, carried, shared)
}
