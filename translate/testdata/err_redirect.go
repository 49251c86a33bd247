package main

import (
	"fmt"
	"log"
	"os"
)

// Output a region prints is captured and ordered where it goes to the
// process's standard output or error; a program that points os.Stdout or
// the log package elsewhere (a file) would get every node's iterations
// written into it, each at its own offset.

func main() {
	f, err := os.Create("run.log")
	if err != nil {
		log.Fatal(err)
	}
	log.SetOutput(f)
	out, err := os.Create("out.txt")
	if err != nil {
		log.Fatal(err)
	}
	os.Stdout = out
	a := make([]int, 12)
	//cape:parallel for
	for i := 0; i < 12; i++ {
		a[i] = i * i
		log.Printf("iteration %d", i)         // want "log.Printf prints in the parallel region, but the log package's output is pointed at a writer of the program's \\(err_redirect.go:19\\)"
		fmt.Println("row", i)                 // want "fmt.Println prints in the parallel region, but the program points its standard output elsewhere \\(err_redirect.go:24\\)"
		fmt.Fprintf(os.Stdout, "row %d\n", i) // want "fmt.Fprintf prints in the parallel region, but the program points its standard output elsewhere"
		fmt.Fprintf(os.Stderr, "row %d\n", i) // each node's own standard error
		s := fmt.Sprint(i)                    // no output
		a[i] += len(s)
	}
	log.Println("end")
	fmt.Println(a)
}
