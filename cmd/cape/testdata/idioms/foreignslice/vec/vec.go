// Package vec is a small vector package: a named slice type whose
// value-receiver methods write its elements.
package vec

// Vector is a vector of float64s.
type Vector []float64

// Axpy adds a*x to v.
func (v Vector) Axpy(a float64, x Vector) {
	for i := range v {
		v[i] += a * x[i]
	}
}

// Norm2 is v's squared norm.
func (v Vector) Norm2() float64 {
	s := 0.0
	for _, e := range v {
		s += e * e
	}
	return s
}
