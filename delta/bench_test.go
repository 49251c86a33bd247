package delta

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

const (
	benchArena = 16 << 20
	benchPage  = 4096
	benchNodes = 4
	benchRow   = 8 * 1000 // a row of 1000 int64: rows do not end on page boundaries
)

// benchPair returns a twin and a current arena where the given share of
// 8-byte words differ in every byte.
func benchPair(percent int) (cur, twin []byte) {
	rng := rand.New(rand.NewPCG(11, uint64(percent)))
	twin = make([]byte, benchArena)
	for i := 0; i < len(twin); i += 8 {
		binary.LittleEndian.PutUint64(twin[i:], rng.Uint64())
	}
	cur = slices.Clone(twin)
	for i := 0; i < len(cur); i += 8 {
		if rng.IntN(100) < percent {
			binary.LittleEndian.PutUint64(cur[i:], binary.LittleEndian.Uint64(cur[i:])^0x5a5a5a5a5a5a5a5a)
		}
	}
	return cur, twin
}

func diffPages(d *Delta, cur, twin []byte, diff func(*Delta, uint64, []byte, []byte)) {
	for p := 0; p < len(cur); p += benchPage {
		diff(d, uint64(p), cur[p:p+benchPage], twin[p:p+benchPage])
	}
}

func BenchmarkDiff(b *testing.B) {
	for _, percent := range []int{0, 10, 100} {
		cur, twin := benchPair(percent)
		for _, impl := range []struct {
			name string
			diff func(*Delta, uint64, []byte, []byte)
		}{{"fast", Diff}, {"reference", diffReference}} {
			if impl.name == "reference" && percent != 10 {
				continue
			}
			b.Run(fmt.Sprintf("changed=%d%%/%s", percent, impl.name), func(b *testing.B) {
				benchDiff(b, cur, twin, impl.diff)
			})
		}
	}
	// The matrix product: every int64 written, small values over zeros.
	twin := make([]byte, benchArena)
	cur := make([]byte, benchArena)
	rng := rand.New(rand.NewPCG(14, 15))
	for i := 0; i < len(cur); i += 8 {
		binary.LittleEndian.PutUint64(cur[i:], uint64(rng.IntN(1<<24))|1)
	}
	b.Run("int64/fast", func(b *testing.B) { benchDiff(b, cur, twin, Diff) })
	b.Run("int64/reference", func(b *testing.B) { benchDiff(b, cur, twin, diffReference) })
}

func benchDiff(b *testing.B, cur, twin []byte, diff func(*Delta, uint64, []byte, []byte)) {
	var d Delta
	diffPages(&d, cur, twin, diff) // size the buffers
	b.ReportAllocs()
	b.SetBytes(benchArena)
	for b.Loop() {
		d.Reset(1, 0)
		diffPages(&d, cur, twin, diff)
	}
	b.ReportMetric(float64(len(d.Runs)), "runs")
}

// benchKinds are the cases of the benchmarks of merged deltas:
//
//   - dense: each of benchNodes nodes writes every benchNodes-th row of
//     int64 values that fill all 8 bytes, over a zero twin;
//   - int64: the same rows with small values (< 2^24), as in the matrix
//     product, diffed with Diff: one run per row;
//   - int64-exact: the same, diffed with diffReference (which is what Diff
//     gave before it worked by words): each int64 is a run of up to 3
//     bytes, the fragmented case;
//   - int32-cyclic: node k writes every int32 element i with i%benchNodes
//     == k (schedule(static,1) over an []int32), diffed with Diff: every
//     word is shared by two nodes, so the runs of all nodes overlap and
//     MergeBase resolves every byte against the base. The worst case.
//
// Every case writes the whole arena: the benchmarks set benchArena bytes
// per operation, so that MB/s compare across cases and with BenchmarkCopy.
var benchKinds = []string{"dense", "int64", "int64-exact", "int32-cyclic"}

// benchNodeDeltas returns the deltas of benchNodes nodes for each of
// benchKinds, all over the zero twin it returns.
var benchNodeDeltas = sync.OnceValues(func() (map[string][]*Delta, []byte) {
	out := map[string][]*Delta{}
	twin := make([]byte, benchArena)
	for _, kind := range benchKinds {
		rng := rand.New(rand.NewPCG(12, 13))
		ds := make([]*Delta, benchNodes)
		for k := range ds {
			cur := make([]byte, benchArena)
			if kind == "int32-cyclic" {
				for i := 4 * k; i < benchArena; i += 4 * benchNodes {
					binary.LittleEndian.PutUint32(cur[i:], uint32(rng.IntN(1<<24))|1)
				}
			} else {
				for r := 0; r*benchRow < benchArena; r++ {
					if r%benchNodes != k {
						continue
					}
					for i := r * benchRow; i < min((r+1)*benchRow, benchArena); i += 8 {
						v := rng.Uint64() | 0x0101010101010101
						if kind != "dense" {
							v = uint64(rng.IntN(1<<24)) | 1
						}
						binary.LittleEndian.PutUint64(cur[i:], v)
					}
				}
			}
			ds[k] = &Delta{Region: 1, Node: k}
			if kind == "int64-exact" {
				diffPages(ds[k], cur, twin, diffReference)
			} else {
				diffPages(ds[k], cur, twin, Diff)
			}
		}
		out[kind] = ds
	}
	return out, twin
})

func benchMerged(b *testing.B, kind string) *Delta {
	all, twin := benchNodeDeltas()
	m, err := MergeBase(1, sliceBase(twin), all[kind]...)
	if err != nil {
		b.Fatal(err)
	}
	return m
}

func BenchmarkMerge(b *testing.B) {
	all, twin := benchNodeDeltas()
	base := PagedBase(benchPage, func(p int) []byte { return twin[p*benchPage : (p+1)*benchPage] })
	for _, kind := range benchKinds {
		ds := all[kind]
		b.Run(kind, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(benchArena)
			m := new(Delta) // reused, as a master merging region after region would
			for b.Loop() {
				if err := MergeBaseInto(m, 1, base, ds...); err != nil {
					b.Fatal(err)
				}
			}
			n := 0
			for _, d := range ds {
				n += len(d.Runs)
			}
			b.ReportMetric(float64(n), "runs")
		})
	}
}

func BenchmarkApply(b *testing.B) {
	for _, kind := range benchKinds {
		m := benchMerged(b, kind)
		mem := make([]byte, benchArena)
		b.Run(kind, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(benchArena)
			for b.Loop() {
				if err := m.Apply(mem); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(m.Runs)), "runs")
		})
	}
}

func BenchmarkEncode(b *testing.B) {
	for _, kind := range benchKinds {
		m := benchMerged(b, kind)
		for _, c := range []Compression{None, S2, Zstd, Auto} {
			b.Run(kind+"/"+c.String(), func(b *testing.B) {
				dst, err := m.AppendBinary(nil, c)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.SetBytes(benchArena)
				for b.Loop() {
					dst, _ = m.AppendBinary(dst[:0], c)
				}
				b.ReportMetric(float64(len(dst))/benchArena, "ratio")
			})
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, kind := range benchKinds {
		m := benchMerged(b, kind)
		for _, c := range []Compression{None, S2, Zstd} {
			enc, err := m.AppendBinary(nil, c)
			if err != nil {
				b.Fatal(err)
			}
			lim := ArenaLimits(benchArena)
			b.Run(kind+"/"+c.String(), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(benchArena)
				d := new(Delta) // reused, as a slave would region after region
				for b.Loop() {
					if err := DecodeInto(d, enc, lim); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkCopy is a plain copy of the arena: the yardstick for the MB/s of
// the other benchmarks.
func BenchmarkCopy(b *testing.B) {
	src := make([]byte, benchArena)
	dst := make([]byte, benchArena)
	b.ReportAllocs()
	b.SetBytes(benchArena)
	for b.Loop() {
		copy(dst, src)
	}
}
