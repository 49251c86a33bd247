package solver

var Scale = 1
var Calls int

type Grid struct {
	N    int
	Vals []float64
}

func NewGrid(n int) *Grid { return &Grid{N: n, Vals: make([]float64, n)} }

func (g *Grid) Set(i int, v float64) { g.Vals[i] = v * float64(Scale) }
func (g *Grid) Get(i int) float64    { return g.Vals[i] }

func Fill(out []float64, i int) { out[i] = float64(i*i%97) / 4 }

func Count(i int) int {
	c := 0
	for x := i; x > 1; x /= 2 {
		c++
	}
	return c
}
