package part

type Vec3 struct{ X, Y, Z float64 }

func (a Vec3) Add(b Vec3) Vec3      { return Vec3{a.X + b.X, a.Y + b.Y, a.Z + b.Z} }
func (a Vec3) Scale(s float64) Vec3 { return Vec3{a.X * s, a.Y * s, a.Z * s} }
func (a Vec3) Dot(b Vec3) float64   { return a.X*b.X + a.Y*b.Y + a.Z*b.Z }

type State struct {
	Pos, Vel []Vec3
}

type System struct {
	State
	Mass []float64
	K    float64
}

func (s *System) N() int { return len(s.Pos) }

// Force on particle i from a harmonic chain with its neighbours.
func (s *System) Force(i int) Vec3 {
	f := Vec3{}
	if i > 0 {
		f = f.Add(s.Pos[i-1].Add(s.Pos[i].Scale(-1)).Scale(s.K))
	}
	if i < len(s.Pos)-1 {
		f = f.Add(s.Pos[i+1].Add(s.Pos[i].Scale(-1)).Scale(s.K))
	}
	return f
}

func (s *System) Kick(i int, f Vec3, dt float64) {
	s.Vel[i] = s.Vel[i].Add(f.Scale(dt / s.Mass[i]))
}
