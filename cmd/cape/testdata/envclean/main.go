// Command envclean is a test program: every node checks, in sequential
// code, that the launcher's variables (CAPE_*) are not in the program's
// environment, where the program's children would inherit them, and exits
// with status 3 naming one if it is.
package main

import (
	"fmt"
	"os"
	"strings"
)

func main() {
	a := make([]int, 64)
	//cape:parallel for
	for i := range a {
		a[i] = i * i
	}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "CAPE_") {
			fmt.Fprintln(os.Stderr, "the program's environment holds", kv)
			os.Exit(3)
		}
	}
	fmt.Println(a[63])
}
