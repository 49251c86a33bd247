package st

type S struct {
	Last int
	Buf  []int
}

func (s *S) Note(v int) {
	s.Last = v
	s.Buf[0] = v
}
