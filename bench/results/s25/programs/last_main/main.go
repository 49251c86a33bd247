package main

import "fmt"

type S struct {
	Last int
	Buf  []int
}

func (s *S) Note(v int) {
	s.Last = v
	s.Buf[0] = v
}

func main() {
	data := []int{5, 5, 5, 5, 5, 5, 1, 0, 0, 0, 0, 0}
	s := &S{Buf: make([]int, 1)}
	//cape:parallel for
	for i := 0; i < 12; i++ {
		s.Note(data[i])
	}
	fmt.Println(s.Last, s.Buf)
}
