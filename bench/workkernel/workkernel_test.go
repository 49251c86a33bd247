package workkernel

import (
	"math"
	"testing"
)

func TestBlockIsTheStaticSplit(t *testing.T) {
	for _, tc := range []struct{ first, count, parts int }{{1, 10, 3}, {0, 7, 7}, {0, 5, 8}, {1, 1000, 15}} {
		next := tc.first
		for p := range tc.parts {
			lo, hi := Block(tc.first, tc.count, p, tc.parts)
			if lo != next || hi < lo || hi-lo > tc.count/tc.parts+1 {
				t.Fatalf("%+v part %d: [%d, %d) after %d", tc, p, lo, hi, next)
			}
			next = hi
		}
		if next != tc.first+tc.count {
			t.Errorf("%+v: the parts end at %d", tc, next)
		}
	}
}

func TestPoissonRows(t *testing.T) {
	const m = 5
	whole := Poisson(m, 0, m*m)
	at := func(i, j int) float64 {
		for k := whole.Ptr[i]; k < whole.Ptr[i+1]; k++ {
			if whole.Col[k] == j {
				return whole.Val[k]
			}
		}
		return 0
	}
	for i := range m * m {
		var sum float64
		for j := range m * m {
			if at(i, j) != at(j, i) {
				t.Fatalf("not symmetric at %d, %d", i, j)
			}
			sum += at(i, j)
		}
		// Row sums: 4 minus the neighbours inside the grid.
		y, x := i/m, i%m
		edges := 0
		for _, in := range []bool{y > 0, y < m-1, x > 0, x < m-1} {
			if !in {
				edges++
			}
		}
		if sum != float64(edges) {
			t.Errorf("row %d sums to %g, want %d", i, sum, edges)
		}
	}
	// A block of rows is the same rows.
	part := Poisson(m, 7, 13)
	for i := 7; i < 13; i++ {
		a, b := part.Ptr[i-7:i-7+2], whole.Ptr[i:i+2]
		if a[1]-a[0] != b[1]-b[0] || part.Col[a[0]] != whole.Col[b[0]] {
			t.Errorf("row %d differs in the block", i)
		}
	}
}

func TestCGKernelsAgreeAcrossBlocks(t *testing.T) {
	const m = 6
	rows := m * m
	p := make([]float64, rows)
	Fill(p, 0)
	q1, q2 := make([]float64, rows), make([]float64, rows)
	whole := Poisson(m, 0, rows).MatVecDot(p, q1)
	var parts int64
	for b := range 4 {
		lo, hi := Block(0, rows, b, 4)
		parts += Poisson(m, lo, hi).MatVecDot(p, q2)
	}
	if whole != parts || Hash(HashStart, q1) != Hash(HashStart, q2) {
		t.Fatalf("one block: dot %d, four blocks: %d", whole, parts)
	}
	if whole <= 0 {
		t.Fatalf("p·Ap = %d for a positive definite A", whole)
	}
}

func TestRandomAndHash(t *testing.T) {
	seen := map[float64]bool{}
	for k := range 1000 {
		v := Random(k)
		if v < 0 || v >= 1 || seen[v] {
			t.Fatalf("Random(%d) = %g", k, v)
		}
		seen[v] = true
	}
	a := []float64{1, 2, 3}
	b := []float64{1, 2, math.Nextafter(3, 4)}
	if Hash(HashStart, a) == Hash(HashStart, b) || Hash(Hash(HashStart, a[:1]), a[1:]) != Hash(HashStart, a) {
		t.Fatal("the hash misses one bit, or does not continue")
	}
}
