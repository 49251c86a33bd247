// Montecarlo estimates π and a histogram with a random generator made in
// each iteration: by a literal, by a constructor returning it by value,
// and inside a helper; pointer-receiver methods; a [8]float64 work array
// whose address is taken; an accumulator struct made per iteration whose
// method writes shared memory through a field; a local array filled
// through a pointer by a helper.
package main

import (
	"flag"
	"fmt"
)

type xorshift struct{ s uint64 }

func (x *xorshift) next() uint64 {
	x.s ^= x.s << 13
	x.s ^= x.s >> 7
	x.s ^= x.s << 17
	return x.s
}

func (x *xorshift) float() float64 { return float64(x.next()>>11) / (1 << 53) }

func mix(v uint64) uint64 {
	v += 0x9e3779b97f4a7c15
	v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9
	v = (v ^ (v >> 27)) * 0x94d049bb133111eb
	return v ^ (v >> 31)
}

func newXorshift(i int) xorshift { return xorshift{s: mix(uint64(i) + 77)} }

// jitter has a generator of its own, whoever calls it.
func jitter(i int) float64 {
	g := xorshift{s: mix(uint64(i) * 3)}
	return g.float()
}

// spread fills w through its pointer.
func spread(w *[4]float64, x float64) {
	for k := range w {
		w[k] = x * float64(k+1)
	}
}

// tally is made in each iteration; its field bins points into the shared
// histogram.
type tally struct {
	bins []int64
	seen int
}

func (t *tally) add(x float64) {
	b := int(x * float64(len(t.bins)))
	if b >= len(t.bins) {
		b = len(t.bins) - 1
	}
	t.bins[b]++
	t.seen++
}

func main() {
	n := flag.Int("n", 4000, "samples")
	flag.Parse()
	const per = 64
	hist := make([]int64, 16*(*n))
	perIter := make([]float64, *n)
	var hits int64
	//cape:parallel for reduction(+:hits) schedule(dynamic, 100)
	for i := 0; i < *n; i++ {
		rng := xorshift{s: mix(uint64(i))}
		r := newXorshift(i)
		var work [8]float64
		p := &work
		for k := 0; k < per; k++ {
			x := rng.float()
			y := r.float()
			if x*x+y*y < 1 {
				hits++
				p[k%8] += 1
			}
		}
		var w [4]float64
		spread(&w, jitter(i))
		t := tally{bins: hist[16*i : 16*(i+1)]}
		for k := range work {
			t.add(work[k] / per * 8)
		}
		t.add(w[0])
		perIter[i] = work[0] + w[3] + float64(t.seen)
	}
	sum := 0.0
	for _, v := range perIter {
		sum += v
	}
	var h [16]int64
	for i, c := range hist {
		h[i%16] += c
	}
	fmt.Printf("pi ≈ %.6f\n", 4*float64(hits)/float64(*n*per))
	fmt.Printf("per-iteration sum %.9e\n", sum)
	fmt.Println("histogram", h)
}
