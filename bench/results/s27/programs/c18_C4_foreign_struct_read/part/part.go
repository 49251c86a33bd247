package part

type Vec3 struct{ X, Y, Z float64 }

func (a Vec3) Add(b Vec3) Vec3 { return Vec3{a.X + b.X, a.Y + b.Y, a.Z + b.Z} }

type System struct {
	Pos []Vec3
	M   []float64
}

func (s *System) Plain(i int) float64 { return s.Pos[i].X + s.M[i] }
func (s *System) Sum(i int) Vec3      { return s.Pos[i].Add(s.Pos[i]) }
