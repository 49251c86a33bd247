// Command conflict is a test program with a race: every iteration writes
// its index to the same element, so two nodes write different values to it
// and the merge must refuse the region, naming the element and both nodes.
package main

import "fmt"

func main() {
	n := 8
	x := make([]int64, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		x[0] = int64(i)
	}
	fmt.Println(x[0])
}
