package exchange

import (
	"errors"
	"slices"
	"testing"

	"github.com/cape-go/cape/delta"
)

// injector records what it is told, and fails at failAt (if ≥ 0).
type injector struct {
	got    [][2]int
	failAt int
}

var errProtect = errors.New("unprotect failed")

func (j *injector) WillWrite(off, n int) error {
	if len(j.got) == j.failAt {
		return errProtect
	}
	j.got = append(j.got, [2]int{off, n})
	return nil
}

func TestPrepare(t *testing.T) {
	mem := make([]byte, 2*PopulateMin)
	d := &delta.Delta{}
	delta.AppendFull(d, 8, []byte{1, 2, 3})
	delta.AppendFull(d, 100, make([]byte, PopulateMin)) // populated
	tests := []struct {
		name     string
		failAt   int
		populate bool
		want     [][2]int
		err      error
	}{
		{"every run", -1, true, [][2]int{{8, 3}, {100, PopulateMin}}, nil},
		{"without populating", -1, false, [][2]int{{8, 3}, {100, PopulateMin}}, nil},
		{"error stops", 1, true, [][2]int{{8, 3}}, errProtect},
		{"empty delta", -1, true, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := d
			if tt.want == nil {
				in = &delta.Delta{}
			}
			j := &injector{failAt: tt.failAt}
			err := Prepare(in, mem, j, tt.populate)
			if !errors.Is(err, tt.err) {
				t.Fatalf("Prepare: %v, want %v", err, tt.err)
			}
			if !slices.Equal(j.got, tt.want) {
				t.Errorf("told %v, want %v", j.got, tt.want)
			}
		})
	}
	j := &injector{failAt: -1, got: make([][2]int, 0, 4)}
	if a := testing.AllocsPerRun(10, func() { j.got = j.got[:0]; _ = Prepare(d, mem, j, true) }); a != 0 {
		t.Errorf("Prepare allocates %v times", a)
	}
}
