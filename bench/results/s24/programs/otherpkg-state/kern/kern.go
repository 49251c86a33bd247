package kern

var total float64
var calls int

func Accumulate(x float64) float64 {
	total += x
	calls++
	return x * 2
}

func Total() (float64, int) { return total, calls }
