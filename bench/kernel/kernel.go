package kernel

// Fill gives A and B deterministic small values, positive and negative.
func Fill(a, b []int64) {
	for i := range a {
		a[i] = int64(i*7+3)%101 - 50
		b[i] = int64(i*13+5)%103 - 51
	}
}

// Multiply computes rows [lo, hi) of C = A×B.
//
// It is never inlined: inlined into a large caller (the message-passing
// baseline's run function) the same loop measured 1.3–1.6× slower here
// (register pressure), which would flatter CAPE in the comparison.
//
//go:noinline
func Multiply(a, b, c []int64, n, lo, hi int) {
	for i := lo; i < hi; i++ {
		for j := 0; j < n; j++ {
			var s int64
			for k := 0; k < n; k++ {
				s += a[i*n+k] * b[k*n+j]
			}
			c[i*n+j] = s
		}
	}
}

// Checksum mixes every element of c, in order, into 64 bits (FNV-1a style).
func Checksum(c []int64) uint64 {
	h := uint64(14695981039346656037)
	for _, v := range c {
		h ^= uint64(v)
		h *= 1099511628211
	}
	return h
}

// Block returns rank's block [lo, hi) of [0, count) split over size workers,
// the first count%size blocks one longer: the split of cape's Region.Static.
func Block(count, rank, size int) (lo, hi int) {
	if count <= 0 || size <= 0 {
		return 0, 0
	}
	q, rem := count/size, count%size
	lo = rank*q + min(rank, rem)
	hi = lo + q
	if rank < rem {
		hi++
	}
	return lo, hi
}
