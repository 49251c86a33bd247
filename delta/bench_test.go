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
		}{{"fast", Diff}, {"reference", DiffReference}} {
			if impl.name == "reference" && percent != 10 {
				continue
			}
			b.Run(fmt.Sprintf("changed=%d%%/%s", percent, impl.name), func(b *testing.B) {
				var d Delta
				diffPages(&d, cur, twin, impl.diff) // size the buffers
				b.ReportAllocs()
				b.SetBytes(benchArena)
				for b.Loop() {
					d.Reset(1, 0)
					diffPages(&d, cur, twin, impl.diff)
				}
				b.ReportMetric(float64(len(d.Runs)), "runs")
			})
		}
	}
}

// benchNodeDeltas returns the deltas of benchNodes nodes that each wrote
// every benchNodes-th row of int64 values over a zero twin. With dense, the
// values fill all 8 bytes (one run per row); otherwise they are small
// (< 2^24), as in the matrix product, so each int64 is a run of up to 3
// bytes: the fragmented case.
var benchNodeDeltas = sync.OnceValues(func() (map[string][]*Delta, error) {
	out := map[string][]*Delta{}
	twin := make([]byte, benchArena)
	for _, kind := range []string{"dense", "int64"} {
		rng := rand.New(rand.NewPCG(12, 13))
		ds := make([]*Delta, benchNodes)
		for k := range ds {
			cur := make([]byte, benchArena)
			for r := 0; r*benchRow < benchArena; r++ {
				if r%benchNodes != k {
					continue
				}
				for i := r * benchRow; i < min((r+1)*benchRow, benchArena); i += 8 {
					v := rng.Uint64() | 0x0101010101010101
					if kind == "int64" {
						v = uint64(rng.IntN(1<<24)) | 1
					}
					binary.LittleEndian.PutUint64(cur[i:], v)
				}
			}
			ds[k] = &Delta{Region: 1, Node: k}
			diffPages(ds[k], cur, twin, Diff)
		}
		out[kind] = ds
	}
	return out, nil
})

func benchMerged(b *testing.B, kind string) *Delta {
	all, _ := benchNodeDeltas()
	m, err := Merge(1, all[kind]...)
	if err != nil {
		b.Fatal(err)
	}
	return m
}

func BenchmarkMerge(b *testing.B) {
	all, _ := benchNodeDeltas()
	for _, kind := range []string{"dense", "int64"} {
		ds := all[kind]
		b.Run(kind, func(b *testing.B) {
			total := 0
			for _, d := range ds {
				total += d.Len()
			}
			b.ReportAllocs()
			b.SetBytes(int64(total))
			m := new(Delta) // reused, as a master merging region after region would
			for b.Loop() {
				if err := MergeInto(m, 1, ds...); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(m.Runs)), "runs")
		})
	}
}

func BenchmarkApply(b *testing.B) {
	for _, kind := range []string{"dense", "int64"} {
		m := benchMerged(b, kind)
		mem := make([]byte, benchArena)
		b.Run(kind, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(m.Len()))
			for b.Loop() {
				if err := m.Apply(mem); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncode(b *testing.B) {
	for _, kind := range []string{"dense", "int64"} {
		m := benchMerged(b, kind)
		for _, c := range []Compression{None, S2, Zstd, Auto} {
			b.Run(kind+"/"+c.String(), func(b *testing.B) {
				dst, err := m.AppendBinary(nil, c)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.SetBytes(int64(m.Len()))
				for b.Loop() {
					dst, _ = m.AppendBinary(dst[:0], c)
				}
				b.ReportMetric(float64(len(dst))/float64(m.Len()), "ratio")
			})
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, kind := range []string{"dense", "int64"} {
		m := benchMerged(b, kind)
		for _, c := range []Compression{None, S2, Zstd} {
			enc, err := m.AppendBinary(nil, c)
			if err != nil {
				b.Fatal(err)
			}
			lim := ArenaLimits(benchArena)
			b.Run(kind+"/"+c.String(), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(m.Len()))
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
