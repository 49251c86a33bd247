// Package linalg is a small matrix package of the program's module: a
// read-only row view, getters (one by value), promoted fields of an
// embedded shape, and a generic vector.
package linalg

// Shape is a matrix's size.
type Shape struct{ R, C int }

// Size is the number of elements.
func (s Shape) Size() int { return s.R * s.C }

// Matrix is a dense row-major matrix.
type Matrix struct {
	Shape
	Data []float64
}

// Rows is the number of rows (a value receiver).
func (m Matrix) Rows() int { return m.R }

// Cols is the number of columns.
func (m *Matrix) Cols() int { return m.C }

// Row is a view of row i, only read by its callers here.
func (m *Matrix) Row(i int) []float64 { return m.Data[i*m.C : (i+1)*m.C] }

// At is the element at i, j.
func (m *Matrix) At(i, j int) float64 { return m.Data[i*m.C+j] }

// Set sets the element at i, j.
func (m *Matrix) Set(i, j int, v float64) { m.Data[i*m.C+j] = v }

// Dot is the dot product of x and y.
func Dot(x, y []float64) float64 {
	s := 0.0
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}

// MulVecRow sets y[i] to row i of m times x.
func (m *Matrix) MulVecRow(x, y []float64, i int) { y[i] = Dot(m.Row(i), x) }

// RowSum is the sum of row i.
func (m *Matrix) RowSum(i int) float64 {
	s := 0.0
	for _, v := range m.Row(i) {
		s += v
	}
	return s
}

// ScaleRow multiplies row i by a, checking against Rows and Size.
func (m *Matrix) ScaleRow(i int, a float64) {
	if i >= m.Rows() || i*m.C >= m.Size() {
		return
	}
	for j := 0; j < m.C; j++ {
		m.Set(i, j, a*m.At(i, j))
	}
}

// Vec is a vector of numbers.
type Vec[T ~float64 | ~int] struct{ D []T }

// Set sets element i.
func (v *Vec[T]) Set(i int, x T) { v.D[i] = x }

// Get is element i.
func (v *Vec[T]) Get(i int) T { return v.D[i] }
