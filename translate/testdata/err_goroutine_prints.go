package main

import (
	"bufio"
	"fmt"
	"io"
	"log"
	"os"
	"sync"
)

// A goroutine that writes to standard output while a region runs: during
// a region every node's output is forwarded to the master, and a write
// of another goroutine would be printed more than once. It must be waited
// for before the next region, or write nothing to standard output.

func fill(a []int, k int) {
	//cape:parallel for
	for i := range a {
		a[i] = i * k
	}
}

func show(v int) { fmt.Println("step", v) }

func report(v int) { show(v) } // writes through show

func sum(a []int) int {
	s := 0
	for _, x := range a {
		s += x
	}
	return s
}

func write(w io.Writer, v int) { fmt.Fprintln(w, v) }

func main() {
	a := make([]int, 64)
	results := make(chan int, 8)
	done := make(chan bool)
	go func() { // want "this goroutine writes to standard output .fmt.Println at err_goroutine_prints.go:44. and may still run while a parallel region runs .err_goroutine_prints.go:49.: .*wait for the goroutine before the next region"
		for v := range results {
			fmt.Println("step result", v)
		}
		done <- true
	}()
	for k := 0; k < 2; k++ {
		fill(a, k)
		results <- a[63]
	}
	close(results)
	<-done

	var wg sync.WaitGroup
	for k := 0; k < 2; k++ {
		wg.Add(1)
		go func() { // want "a call of report at err_goroutine_prints.go:60, which may write to standard output.*err_goroutine_prints.go:62"
			defer wg.Done()
			report(k)
		}()
		fill(a, k) // runs while the goroutine may write
		wg.Wait()
	}
	go func() { // want "a use of os.Stdout at err_goroutine_prints.go:66.*err_goroutine_prints.go:79"
		fmt.Fprintln(os.Stdout, "late")
	}()
	out := bufio.NewWriter(os.Stdout)
	go func() { // want "out, which holds standard output, at err_goroutine_prints.go:70"
		fmt.Fprintln(out, "buffered")
	}()
	go write(os.Stdout, 1) // want "a use of os.Stdout at err_goroutine_prints.go:72"
	wg.Add(1)
	go func() { // want "fmt.Println at err_goroutine_prints.go:75. and may still run while a parallel region runs .err_goroutine_prints.go:79."
		defer fmt.Println("bye") // runs after wg.Done()
		defer wg.Done()
	}()
	wg.Wait()
	fill(a, 3)

	// Accepted: joined before the next region, or not writing to
	// standard output.
	wg.Add(1)
	go func() { // waited for before the next region
		defer wg.Done()
		report(sum(a))
	}()
	wg.Wait()
	fill(a, 4)
	fin := make(chan struct{})
	go func() { // waited for: close(fin) is its last statement
		fmt.Println("sum", sum(a))
		close(fin)
	}()
	<-fin
	fill(a, 5)
	wg.Add(1)
	go func() { // its deferred write runs before wg.Done()
		defer wg.Done()
		defer fmt.Println("deferred")
	}()
	wg.Wait()
	fill(a, 6)
	total := make(chan int, 1)
	go func() { total <- sum(a) }() // writes nothing
	f, _ := os.Create(os.DevNull)
	go func() { // standard error and a file
		fmt.Fprintln(os.Stderr, "progress")
		fmt.Fprintln(f, "log")
		log.Println("to standard error")
		println("builtin")
		write(f, 2)
	}()
	fill(a, <-total)
	out.Flush()
	fmt.Println(a[63])
}
