// Command verifyck names a slice reduction variable in a checkpoint of its
// loop, which places it in the arena: the --verify re-run must accumulate
// there, where the arena is compared, not in a copy on the Go heap (it
// stopped a correct program, 'parallel 0x03, sequential 0x00').
package main

import "fmt"

func main() {
	hist := make([]int, 4)
	for s := 0; s < 3; s++ {
		//cape:checkpoint s, hist
		//cape:parallel for reduction(+:hist)
		for i := 0; i < 10; i++ {
			hist[i%4] += i + s
		}
	}
	fmt.Println(hist)
}
