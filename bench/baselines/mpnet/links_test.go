package mpnet

import (
	"math"
	"net"
	"slices"
	"sync"
	"testing"
)

// pipes links n ranks in memory, as Connect would over TCP: every slave to
// the root, and every rank to its neighbours.
func pipes(n int) []*Links {
	ls := make([]*Links, n)
	for r := range ls {
		ls[r] = &Links{rank: r, size: n}
	}
	ls[0].root = make([]net.Conn, n)
	for r := 1; r < n; r++ {
		a, b := net.Pipe()
		ls[0].root[r], ls[r].root = a, []net.Conn{b}
		a, b = net.Pipe()
		ls[r-1].down, ls[r].up = a, b
	}
	return ls
}

// each runs f on every rank concurrently and fails on any error.
func each(t *testing.T, ls []*Links, f func(l *Links, c *Counter) error) []Counter {
	t.Helper()
	cs := make([]Counter, len(ls))
	errs := make([]error, len(ls))
	var wg sync.WaitGroup
	for r, l := range ls {
		wg.Go(func() { errs[r] = f(l, &cs[r]) })
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	return cs
}

func TestHaloMovesBoundariesAndCounts(t *testing.T) {
	for _, n := range []int{1, 2, 4} {
		ls := pipes(n)
		got := make([][2]float64, n) // what each rank received from up and down
		cs := each(t, ls, func(l *Links, c *Counter) error {
			mine := []float64{float64(10 * l.rank), float64(10*l.rank + 1)}
			up, down := make([]float64, 1), make([]float64, 1)
			err := l.Halo(Bytes(mine[:1]), Bytes(up), Bytes(mine[1:]), Bytes(down), c)
			got[l.rank] = [2]float64{up[0], down[0]}
			return err
		})
		for r := range n {
			want := [2]float64{0, 0}
			if r > 0 {
				want[0] = float64(10*(r-1) + 1) // rank r-1's last
			}
			if r < n-1 {
				want[1] = float64(10 * (r + 1)) // rank r+1's first
			}
			links := int64(0)
			if r > 0 {
				links++
			}
			if r < n-1 {
				links++
			}
			if got[r] != want || cs[r] != (Counter{Sent: 8 * links, Recv: 8 * links}) {
				t.Errorf("%d ranks, rank %d: received %v (want %v), counted %+v", n, r, got[r], want, cs[r])
			}
		}
	}
}

func TestReductions(t *testing.T) {
	const n = 4
	vals := []float64{3, -7, 12.5, 1}
	ints := []int64{math.MaxInt64, 1, -5, 7}
	var wrapped int64 = math.MinInt64 + 2 // MaxInt64 + 1 wraps to MinInt64
	for _, tc := range []struct {
		name string
		all  bool
		f    func(a, b uint64) uint64
		in   func(r int) uint64
		want uint64
	}{
		{"max", true, MaxFloat64, func(r int) uint64 { return math.Float64bits(vals[r]) }, math.Float64bits(12.5)},
		{"sum wraps", true, SumInt64, func(r int) uint64 { return uint64(ints[r]) }, uint64(wrapped)},
		{"reduce to root", false, SumInt64, func(r int) uint64 { return uint64(r + 1) }, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := make([]uint64, n)
			cs := each(t, pipes(n), func(l *Links, c *Counter) error {
				var err error
				if tc.all {
					out[l.rank], err = l.Allreduce(tc.in(l.rank), tc.f, c)
				} else {
					out[l.rank], err = l.Reduce(tc.in(l.rank), tc.f, c)
				}
				return err
			})
			for r := range n {
				want := tc.want
				if !tc.all && r > 0 {
					want = tc.in(r) // a slave keeps its own
				}
				if out[r] != want {
					t.Errorf("rank %d got %#x, want %#x", r, out[r], want)
				}
			}
			if tc.all && (cs[0] != Counter{Sent: 24, Recv: 24} || cs[1] != Counter{Sent: 8, Recv: 8}) {
				t.Errorf("counted %+v", cs)
			}
		})
	}
}

func TestGathers(t *testing.T) {
	const n = 3
	blocks := [][2]int{{0, 2}, {2, 3}, {3, 6}}
	xs := make([][]float64, n)
	for r := range xs {
		xs[r] = make([]float64, 6)
		for i := blocks[r][0]; i < blocks[r][1]; i++ {
			xs[r][i] = float64(i + 1)
		}
	}
	want := []float64{1, 2, 3, 4, 5, 6}
	part := func(x []float64) func(int) []byte {
		return func(r int) []byte { return Bytes(x[blocks[r][0]:blocks[r][1]]) }
	}
	each(t, pipes(n), func(l *Links, c *Counter) error {
		x := xs[l.rank]
		return l.Allgather(part(x)(l.rank), part(x), Bytes(x), c)
	})
	for r := range n {
		if !slices.Equal(xs[r], want) {
			t.Errorf("allgather: rank %d holds %v", r, xs[r])
		}
	}
	root := make([]float64, 6)
	cs := each(t, pipes(n), func(l *Links, c *Counter) error {
		x := root
		if l.rank != 0 {
			x = slices.Clone(want)
		}
		if err := l.Gather(part(x)(l.rank), part(x)); err != nil {
			return err
		}
		return l.Finish()
	})
	if !slices.Equal(root[2:], want[2:]) || cs[0] != (Counter{}) {
		t.Errorf("gather: root holds %v, counted %+v", root, cs[0])
	}
}
