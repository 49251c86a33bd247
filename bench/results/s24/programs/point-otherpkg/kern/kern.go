package kern

var energy float64

type Acc struct{ n int }

var acc Acc

func (a *Acc) add() { a.n++ }

func Account(u []float64) {
	for _, x := range u {
		energy += x
	}
	acc.add()
}

func Energy() float64 { return energy }

func Scale(u []float64, f float64) float64 {
	s := 0.0
	for i := range u {
		s += u[i] * f
	}
	return s
}
