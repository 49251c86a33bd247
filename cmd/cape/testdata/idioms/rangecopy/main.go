// Command rangecopy ranges over arrays that CAPE moves to the arena, with a
// value variable: Go ranges over a copy of the array, so the loop's writes
// to the array do not change the values it reads, in sequential code and
// in a parallel loop's own range clause alike.
package main

import "fmt"

const n = 512

var ring [n]int64

func main() {
	for i := range ring {
		ring[i] = int64(i * i % 1009)
	}
	var local [n]int32
	for i := range local {
		local[i] = int32(i % 17)
	}
	out := make([]int64, 8)
	var w [8]int64
	for step := 0; step < 3; step++ {
		// Sequential: a rotation by one through the copy.
		for i, v := range ring {
			ring[(i+1)%n] = v
		}
		//cape:parallel for
		for i, v := range ring {
			ring[(i+1)%n] = v + 1
		}
		//cape:parallel for schedule(dynamic, 16)
		for i, v := range local {
			local[(i+n-1)%n] = v * 2 % 1000
		}
		//cape:parallel for
		for k := 0; k < 8; k++ {
			var s int64
			for j, v := range ring {
				s += v * int64(j%(k+1))
			}
			out[k] += s
			w[k] += int64(k) + s%7
		}
	}
	var s, t int64
	for i := range ring {
		s = (s*31 + ring[i]) % (1 << 50)
		t = (t*17 + int64(local[i])) % (1 << 50)
	}
	fmt.Println(s, t, out, w)
}
