// Command slowslave runs two regions of two iterations each. The second
// iteration, which the second node runs under a static schedule on 2
// nodes, sleeps 300 ms: the master finishes its share first and waits for
// the slave's delta.
package main

import (
	"fmt"
	"time"
)

func main() {
	a := make([]int, 2)
	for step := 0; step < 2; step++ {
		//cape:parallel for schedule(static)
		for i := 0; i < 2; i++ {
			if i == 1 {
				time.Sleep(300 * time.Millisecond)
			}
			a[i] += i + 1
		}
	}
	fmt.Println(a)
}
