package monitor

import "testing"

func TestPageSet(t *testing.T) {
	type op struct {
		add    bool
		lo, hi int
	}
	tests := []struct {
		name string
		ops  []op
		in   []int // pages that must be in the set after ops
		out  []int // pages that must not
	}{
		{"empty", nil, nil, []int{0, 1, 63, 64, 1000}},
		{"one page", []op{{true, 5, 6}}, []int{5}, []int{4, 6, 0, 64}},
		{"empty range", []op{{true, 7, 7}}, nil, []int{7}},
		{"word edges", []op{{true, 63, 65}}, []int{63, 64}, []int{62, 65}},
		{"whole word", []op{{true, 64, 128}}, []int{64, 100, 127}, []int{63, 128}},
		{"several words", []op{{true, 10, 200}}, []int{10, 63, 64, 128, 199}, []int{9, 200}},
		{"remove inside", []op{{true, 0, 192}, {false, 60, 130}}, []int{0, 59, 130, 191}, []int{60, 64, 127, 129}},
		{"remove past the end", []op{{true, 0, 10}, {false, 5, 1000}}, []int{0, 4}, []int{5, 9, 999}},
		{"remove from empty", []op{{false, 0, 100}}, nil, []int{0, 99}},
		{"add again", []op{{true, 0, 3}, {false, 0, 3}, {true, 1, 2}}, []int{1}, []int{0, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s pageSet
			for _, o := range tt.ops {
				if o.add {
					s.add(o.lo, o.hi)
				} else {
					s.remove(o.lo, o.hi)
				}
			}
			for _, p := range tt.in {
				if !s.hasAll(p, p+1) {
					t.Errorf("page %d not in the set", p)
				}
			}
			for _, p := range tt.out {
				if s.hasAll(p, p+1) {
					t.Errorf("page %d in the set", p)
				}
			}
		})
	}
	var s pageSet
	s.add(10, 200)
	for _, r := range []struct {
		lo, hi int
		want   bool
	}{{10, 200, true}, {9, 200, false}, {10, 201, false}, {50, 50, true}, {63, 65, true}, {199, 300, false}} {
		if got := s.hasAll(r.lo, r.hi); got != r.want {
			t.Errorf("hasAll(%d, %d) = %v, want %v", r.lo, r.hi, got, r.want)
		}
	}
}
