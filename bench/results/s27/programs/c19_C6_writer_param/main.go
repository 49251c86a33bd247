package main

import (
	"fmt"
	"io"
	"os"
)

func report(w io.Writer, i, v int) { fmt.Fprintf(w, "%d:%d\n", i, v) }

func main() {
	var out io.Writer = os.Stdout
	n := 10
	a := make([]int, n)
	//cape:parallel for schedule(dynamic)
	for i := 0; i < n; i++ {
		a[i] = i * i
		report(out, i, a[i])
		println("stderr", i)
	}
	fmt.Fprintln(out, a)
}
