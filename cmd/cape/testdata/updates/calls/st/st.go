// Package st holds a note of the last value, written by a method of
// another package than the loop's.
package st

// S keeps the last value noted.
type S struct {
	Last int
	Buf  []int
	seen int
}

// Note records v.
func (s *S) Note(v int) {
	s.Last = v
	s.Buf[0] = v
	s.seen = v
}

// Seen is what Note recorded last in the unexported field.
func (s *S) Seen() int { return s.seen }
