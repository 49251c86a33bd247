package lib

func Load(dst *[]float64, n int) {
	*dst = make([]float64, n)
	for i := range *dst {
		(*dst)[i] = float64(i + 1)
	}
}

func Fill(out **[4]int) {
	*out = &[4]int{1, 2, 3, 4}
}
