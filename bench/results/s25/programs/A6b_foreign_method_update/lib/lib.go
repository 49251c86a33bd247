package lib

func Add(p *int, v int) { *p += v }

func Max(p *float64, v float64) {
	if v > *p {
		*p = v
	}
}

func Set(p *int, v int) { *p = v }

type Acc struct{ N, S int }

func (a *Acc) Add(v int) { a.N++; a.S += v }
