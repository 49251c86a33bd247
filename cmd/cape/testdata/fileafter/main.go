// Command fileafter rewrites a small file in every pass of its loop of
// regions, on every node (sequential code), and reads it back after the
// loop, where only the master runs: the slaves must have left before the
// master reads, or it may read the file while a slave truncates it.
package main

import (
	"fmt"
	"os"
)

func main() {
	a := make([]float64, 2000)
	for r := 0; r < 5; r++ {
		//cape:parallel for
		for i := 0; i < len(a); i++ {
			a[i] = a[i]*0.9 + float64(i%11)
		}
		if err := os.WriteFile("state.txt", []byte(fmt.Sprintf("r=%d a=%.4f\n", r, a[1999])), 0o644); err != nil {
			fmt.Println(err)
		}
	}
	b, err := os.ReadFile("state.txt")
	fmt.Printf("%q %v\n", b, err)
}
