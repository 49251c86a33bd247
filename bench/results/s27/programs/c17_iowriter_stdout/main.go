package main

import (
	"fmt"
	"io"
	"os"
)

var logw io.Writer = os.Stderr

func main() {
	var w io.Writer = os.Stdout
	a := make([]int, 6)
	//cape:parallel for
	for i := 0; i < 6; i++ {
		a[i] = i * i
		fmt.Fprintln(w, "row", i, a[i])
		fmt.Fprintf(logw, "done %d\n", i)
	}
	fmt.Fprintln(w, a)
}
