package roster

import (
	"errors"
	"slices"
	"testing"
)

// TestSlaveUnits checks the units a slave's loop runs: its static units
// in order, or the master's chunks until an empty one, after which the
// master is not asked again; an error of the master's stops the loop.
func TestSlaveUnits(t *testing.T) {
	errLost := errors.New("lost")
	tests := []struct {
		name    string
		setup   func(s *SlaveUnits) bool // returns Static's none, or false
		chunks  []Unit                   // the master's answers, in turn
		askErr  error                    // the master's answer after chunks
		want    []Unit
		none    bool
		wantErr error
		asks    int
	}{
		{name: "block", setup: func(s *SlaveUnits) bool { return s.Static(10, 0, 1, 3) },
			want: []Unit{{4, 7}}},
		{name: "block-cyclic", setup: func(s *SlaveUnits) bool { return s.Static(10, 2, 1, 2) },
			want: []Unit{{2, 4}, {6, 8}}},
		{name: "empty block", setup: func(s *SlaveUnits) bool { return s.Static(1, 0, 1, 2) },
			none: true},
		{name: "cleared", setup: func(s *SlaveUnits) bool { s.Static(10, 0, 0, 2); s.Clear(); return false }},
		{name: "dynamic", setup: func(s *SlaveUnits) bool { s.Dynamic(); return false },
			chunks: []Unit{{0, 2}, {5, 6}, {9, 9}}, want: []Unit{{0, 2}, {5, 6}}, asks: 3},
		{name: "dynamic none", setup: func(s *SlaveUnits) bool { s.Dynamic(); return false },
			chunks: []Unit{{4, 4}}, asks: 1},
		{name: "dynamic lost", setup: func(s *SlaveUnits) bool { s.Dynamic(); return false },
			chunks: []Unit{{0, 1}}, askErr: errLost, want: []Unit{{0, 1}}, wantErr: errLost, asks: 2},
	}
	for _, tt := range tests {
		var s SlaveUnits
		if none := tt.setup(&s); none != tt.none {
			t.Errorf("%s: none %v, want %v", tt.name, none, tt.none)
		}
		asks := 0
		ask := func() (Unit, error) {
			asks++
			if asks > len(tt.chunks) {
				return Unit{}, tt.askErr
			}
			return tt.chunks[asks-1], nil
		}
		var got []Unit
		var err error
		for range 10 {
			var u Unit
			var ok bool
			if u, ok, err = s.Next(ask); !ok {
				break
			}
			got = append(got, u)
		}
		if _, ok, _ := s.Next(ask); ok && err == nil {
			t.Errorf("%s: a unit after the loop ended", tt.name)
		}
		if !slices.Equal(got, tt.want) || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && asks != tt.asks) {
			t.Errorf("%s: units %v, err %v, %d asks; want %v, %v, %d asks", tt.name, got, err, asks, tt.want, tt.wantErr, tt.asks)
		}
	}
}
