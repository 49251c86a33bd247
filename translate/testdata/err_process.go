package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand"
	"os"
	"time"
)

// State each node holds a copy of, read or changed in a region's
// iterations: the standard input's position, math/rand's one generator,
// the standard library's package variables and settings. Each node would
// read, draw or change its own copy.

func next() int {
	var x int
	fmt.Scan(&x) // want "fmt.Scan reads the standard input in the parallel region \\(called from"
	return x
}

func main() {
	level := flag.Int("level", 0, "verbosity")
	flag.Parse()
	n := 8
	a := make([]int, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		var x int
		fmt.Fscan(os.Stdin, &x)           // want "fmt.Fscan reads the standard input in the parallel region: every node reads its own copy"
		a[i] = x + next() + rand.Intn(10) // want "rand.Intn in the parallel region draws from math/rand's one generator"
		if i == n-1 {
			os.Args[0] = "changed"  // want "os.Args belongs to package os and cannot be written in a parallel region"
			time.Local = time.UTC   // want "time.Local belongs to package time and cannot be written"
			log.SetPrefix("last: ") // want "log.SetPrefix in the parallel region changes the process's state"
			flag.Set("level", "3")  // want "flag.Set in the parallel region changes the process's state"
		}
	}
	// Reading them is fine, and so is math/rand's generator made per
	// iteration.
	b := make([]int, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		r := rand.New(rand.NewSource(int64(i)))
		b[i] = r.Intn(10) + len(os.Args) + *level
		if time.Local != nil {
			b[i]++
		}
	}
	// The same reached through function values.
	c := make([]float64, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		c[i] = gen() // want "rand.Float64 \\(through gen\\) in the parallel region draws from math/rand's one generator"
	}
	d := make([]int, n)
	fill(d, rand.Intn)
	fmt.Println(a, b, c, d)
}

var gen = rand.Float64

func fill(out []int, draw func(int) int) {
	//cape:parallel for
	for i := 0; i < len(out); i++ {
		out[i] = draw(1000) // want "rand.Intn \\(through draw\\) in the parallel region draws"
	}
}
