package linalg

type Matrix struct {
	R, C int
	Data []float64
}

func (m *Matrix) At(i, j int) float64     { return m.Data[i*m.C+j] }
func (m *Matrix) Set(i, j int, v float64) { m.Data[i*m.C+j] = v }
func (m *Matrix) Add(i, j int, v float64) { m.Data[i*m.C+j] += v }
func (m *Matrix) Row(i int) []float64     { return m.Data[i*m.C : (i+1)*m.C] }
func (m *Matrix) Rows() int               { return m.R }
func (m *Matrix) Cols() int               { return m.C }

// value receiver
type VMat struct {
	R, C int
	Data []float64
}

func (m VMat) At(i, j int) float64     { return m.Data[i*m.C+j] }
func (m VMat) Set(i, j int, v float64) { m.Data[i*m.C+j] = v }

// column-major
type CMat struct {
	R, C int
	Data []float64
}

func (m *CMat) At(i, j int) float64     { return m.Data[i+j*m.R] }
func (m *CMat) Set(i, j int, v float64) { m.Data[i+j*m.R] = v }

// embedded
type Grid struct {
	Matrix
	H float64
}

func (g *Grid) Lap(i, j int) float64 {
	return (g.At(i-1, j) + g.At(i+1, j) + g.At(i, j-1) + g.At(i, j+1) - 4*g.At(i, j)) / (g.H * g.H)
}

// generic
type Mat[T ~float64 | ~int] struct {
	R, C int
	Data []T
}

func (m *Mat[T]) At(i, j int) T     { return m.Data[i*m.C+j] }
func (m *Mat[T]) Set(i, j int, v T) { m.Data[i*m.C+j] = v }
