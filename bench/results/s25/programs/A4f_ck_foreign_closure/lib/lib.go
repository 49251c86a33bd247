package lib

func Counter(step int) func() int {
	c := 0
	return func() int { c += step; return c }
}

type Walker struct{ pos int }

func (w *Walker) Step() int { w.pos = (w.pos*7 + 3) % 101; return w.pos }
