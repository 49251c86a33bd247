package la

type Matrix struct {
	R, C int
	Data []float64
}

func (m *Matrix) At(i, j int) float64     { return m.Data[i*m.C+j] }
func (m *Matrix) Set(i, j int, v float64) { m.Data[i*m.C+j] = v }

func (m *Matrix) Bad(i int) {
	if i > 0 {
		m.Set(i, 0, m.At(i-1, 0)+1)
	}
}
