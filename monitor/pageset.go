package monitor

// pageSet is a set of page indices, one bit per page, grown on demand;
// the zero value is empty. It is not safe for concurrent use.
type pageSet []uint64

// has reports whether page p is in s.
func (s pageSet) has(p int) bool { return p/64 < len(s) && s[p/64]&(1<<(p%64)) != 0 }

// hasAll reports whether every page of [lo, hi) is in s (true if the
// range is empty).
func (s pageSet) hasAll(lo, hi int) bool {
	for p := lo; p < hi; p++ {
		if !s.has(p) {
			return false
		}
	}
	return true
}

// add puts the pages [lo, hi) in s.
func (s *pageSet) add(lo, hi int) {
	if lo >= hi {
		return
	}
	if need := (hi + 63) / 64; len(*s) < need {
		*s = append(*s, make([]uint64, need-len(*s))...)
	}
	s.apply(lo, hi, func(w *uint64, m uint64) { *w |= m })
}

// remove takes the pages [lo, hi) out of s.
func (s *pageSet) remove(lo, hi int) {
	hi = min(hi, len(*s)*64)
	if lo >= hi {
		return
	}
	s.apply(lo, hi, func(w *uint64, m uint64) { *w &^= m })
}

// apply calls f with each word of s that [lo, hi) meets and the mask of
// the range's bits in it; [lo, hi) must be non-empty and inside s.
func (s *pageSet) apply(lo, hi int, f func(w *uint64, mask uint64)) {
	for w := lo / 64; w <= (hi-1)/64; w++ {
		m := ^uint64(0)
		if w == lo/64 {
			m &= ^uint64(0) << (lo % 64)
		}
		if w == (hi-1)/64 && hi%64 != 0 {
			m &= ^uint64(0) >> (64 - hi%64)
		}
		f(&(*s)[w], m)
	}
}
