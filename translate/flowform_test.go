package translate

import "testing"

func TestFlowDistance(t *testing.T) {
	i, n, j := loopKey, "n@1", "j@2"
	in := i + "*" + n
	if m, _ := monomial(n, i); m != in {
		t.Fatalf("monomial(n, i) = %q, want %q", m, in)
	}
	cases := []struct {
		name  string
		w, rd linForm
		d     int64
		ok    bool
	}{
		{"a[i] from a[i-1]", linForm{i: 1}, linForm{i: 1, "": -1}, -1, true},
		{"a[i] from a[i+1]", linForm{i: 1}, linForm{i: 1, "": 1}, 1, true},
		{"a[i] from a[i]", linForm{i: 1}, linForm{i: 1}, 0, true},
		{"a[2i] from a[2i-2]", linForm{i: 2}, linForm{i: 2, "": -2}, -1, true},
		{"a[2i] from a[2i-1]", linForm{i: 2}, linForm{i: 2, "": -1}, 0, false},
		{"u[i*n+j] from u[(i-1)*n+j]", linForm{in: 1, j: 1}, linForm{in: 1, n: -1, j: 1}, -1, true},
		{"u[i*n+j] from u[i*n+j-1]", linForm{in: 1, j: 1}, linForm{in: 1, j: 1, "": -1}, 0, false},
		{"u[i*n+j] from u[(i-2)*n+j+1]", linForm{in: 1, j: 1}, linForm{in: 1, n: -2, j: 1, "": 1}, 0, false},
		{"u[j*n+i] from u[j*n+i-1]", linForm{j + "*" + n: 1, i: 1}, linForm{j + "*" + n: 1, i: 1, "": -1}, -1, true},
		{"a[i] from a[i+off]", linForm{i: 1}, linForm{i: 1, "off@3": 1}, 0, false},
		{"a[i] from b-shaped a[2i]", linForm{i: 1}, linForm{i: 2}, 0, false},
		{"a[0] from a[i]", linForm{"": 0}, linForm{i: 1}, 0, false},
	}
	for _, c := range cases {
		d, ok := flowDistance(c.w.add(nil, 0), c.rd.add(nil, 0))
		if ok != c.ok || ok && d != c.d {
			t.Errorf("%s: flowDistance = %d, %v; want %d, %v", c.name, d, ok, c.d, c.ok)
		}
	}
}
