package lib

var n int

func Next() int { n += 2; return n }

type Gen struct{ s uint64 }

var G = &Gen{s: 1}

func (g *Gen) Draw() float64 {
	g.s = g.s*6364136223846793005 + 1442695040888963407
	return float64(g.s>>11) / (1 << 53)
}
