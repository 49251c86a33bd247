package main

import (
	"fmt"

	"example.com/last_field/st"
)

func main() {
	data := []int{5, 5, 5, 5, 5, 5, 1, 0, 0, 0, 0, 0}
	s := &st.S{Buf: make([]int, 1)}
	//cape:parallel for
	for i := 0; i < 12; i++ {
		s.Note(data[i])
	}
	fmt.Println(s.Last, s.Buf)
}
