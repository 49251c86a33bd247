//go:debug randautoseed=0

package main

import (
	"fmt"

	"example.com/A5_rand_in_subpkg/mc"
)

func main() {
	hits := 0
	//cape:parallel for reduction(+:hits)
	for i := 0; i < 4000; i++ {
		x, y := mc.Sample(), mc.Sample()
		if x*x+y*y < 1 {
			hits++
		}
	}
	fmt.Println(hits)
}
