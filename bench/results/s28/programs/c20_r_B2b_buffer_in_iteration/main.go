package main

import (
	"bytes"
	"fmt"
)

func main() {
	out := make([]int, 10)
	//cape:parallel for
	for i := 0; i < 10; i++ {
		var buf bytes.Buffer
		fmt.Fprintf(&buf, "%d", i*i*i)
		out[i] = buf.Len()
	}
	fmt.Println(out)
}
