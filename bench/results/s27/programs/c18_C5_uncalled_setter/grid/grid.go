package grid

type G struct {
	N         int
	Cur, Next []float64
}

func (g *G) Now() []float64  { return g.Cur }
func (g *G) Then() []float64 { return g.Next }
func (g *G) Size() int       { return g.N }
func (g *G) Swap()           { g.Cur, g.Next = g.Next, g.Cur }
