// Command repeats updates shared elements at indices that look distinct
// per iteration but repeat: a narrowing conversion of the loop variable
// (-how ring: ring[uint8(i)]++ for i up to 511), a stride that is 0 at run
// time (-how stride: count[i*stride]++), and windows wider than their
// stride (-how window: cover[i*stride+j]++ for j < width). Under go run
// every update counts; on several nodes, two nodes update one element.
package main

import (
	"flag"
	"fmt"
)

func main() {
	how := flag.String("how", "ring", "ring, stride or window")
	m := flag.Int("m", 5, "a size: stride = m/10, width = m/2")
	flag.Parse()
	switch *how {
	case "ring":
		ring := make([]int, 256)
		//cape:parallel for
		for i := 0; i < 512; i++ {
			ring[uint8(i)]++
		}
		fmt.Println(ring[0], ring[255])
	case "stride":
		stride := *m / 10
		count := make([]int, 4)
		//cape:parallel for
		for i := 0; i < 8; i++ {
			count[i*stride]++
		}
		fmt.Println(count[0])
	case "window":
		stride, width := *m/2, *m-1
		cover := make([]int, 16*stride+width)
		//cape:parallel for
		for i := 0; i < 16; i++ {
			for j := 0; j < width; j++ {
				cover[i*stride+j]++
			}
		}
		fmt.Println(cover)
	}
}
