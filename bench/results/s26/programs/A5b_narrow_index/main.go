package main

import "fmt"

func main() {
	b := make([]int, 256)
	//cape:parallel for
	for i := 0; i < 260; i++ {
		if i < 200 {
			b[uint8(i)] = 9
		} else {
			b[uint8(i)] = 0 // i = 256..259 wrap to 0..3
		}
	}
	fmt.Println(b[:8])
}
