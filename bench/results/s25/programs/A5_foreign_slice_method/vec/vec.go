package vec

type Vector []float64

// Axpy sets v += a*x element by element.
func (v Vector) Axpy(a float64, x Vector) {
	for i := range v {
		v[i] += a * x[i]
	}
}
