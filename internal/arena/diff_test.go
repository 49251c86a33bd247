package arena

import "testing"

func TestDiff(t *testing.T) {
	tests := []struct {
		name         string
		a, b         []byte
		first, count int
	}{
		{"empty", nil, nil, -1, 0},
		{"equal", []byte{1, 2, 3}, []byte{1, 2, 3}, -1, 0},
		{"first byte", []byte{0, 2, 3}, []byte{1, 2, 3}, 0, 1},
		{"last byte", []byte{1, 2, 3}, []byte{1, 2, 4}, 2, 1},
		{"several", []byte{1, 0, 3, 0, 5, 0}, []byte{1, 2, 3, 4, 5, 6}, 1, 3},
		{"all", []byte{1, 1, 1}, []byte{2, 2, 2}, 0, 3},
		{"b's tail ignored", []byte{1, 2}, []byte{1, 2, 9, 9}, -1, 0},
		{"zero against a byte", make([]byte, 4096), append(make([]byte, 4095), 7), 4095, 1},
	}
	for _, tt := range tests {
		first, count := Diff(tt.a, tt.b)
		if first != tt.first || count != tt.count {
			t.Errorf("%s: Diff = %d, %d; want %d, %d", tt.name, first, count, tt.first, tt.count)
		}
	}
}
