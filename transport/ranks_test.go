package transport

import "testing"

// TestRankRanges checks that missing ranks are written as runs.
func TestRankRanges(t *testing.T) {
	for _, c := range []struct {
		in   []int
		want string
	}{
		{nil, "[]"},
		{[]int{3}, "[3]"},
		{[]int{1, 2, 3}, "[1-3]"},
		{[]int{3, 7, 8, 9, 12}, "[3 7-9 12]"},
		{[]int{295, 296, 297, 999}, "[295-297 999]"},
	} {
		if got := rankRanges(c.in); got != c.want {
			t.Errorf("rankRanges(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}
