package bench

import (
	"fmt"
	"math"
)

// The performance model, in the spirit of seed 003's Exec = max(N·T_len/W,
// N·T_sz/BW) but with the terms added, since CAPE does not overlap its
// exchange with the product:
//
//	T(n, N) = T1(n)/N + s·V(n, N)/BW + m·M(n, N) + d
//
// T1(n)/N is one node's share of the product: T1(n) is the measured
// sequential time at size n (under the same per-node CPU quota when
// emulated), or a·n³ for a size without a sequential run (a, seconds per
// multiply-add, is the median rate of the sequential runs, or of the
// distributed runs' per-node compute when there is no sequential run). V is
// the number of bytes through the master's link, the bottleneck of a gather
// and broadcast (formulas below); BW, the effective bandwidth of that link,
// is fitted on the message-passing baseline, which does nothing but compute
// and move V; s scales V to the bytes measured; M is the number of bytes the
// CAPE runtime diffs, merges and injects on the master, and m its cost per
// byte; d is a fixed cost (connection set-up lies outside the timed span, so
// d is small). m and d are fitted per variant by least squares on the
// master's measured communication time.
//
// The fit is constrained: BW > 0 and s, m, d ≥ 0 (a fit that breaks a
// constraint falls back to a median ratio through the origin), so
// T(n, N) ≥ T1(n)/N: the modelled speedup T1(n)/T(n, N) never exceeds N
// and the modelled efficiency never exceeds 1. (Fitting one rate a on every
// size instead of anchoring the compute term to T1(n) predicted an
// efficiency of 1.18 on one node, because the product is slower per
// multiply-add at the larger size.)
//
// Bytes, with e = 8 bytes per element:
//
//	gather + broadcast (mpi-go, incremental):  V = (N−1)·e·n²·(1/N + 1)
//	gather only (mpi-go-gather):               V = (N−1)·e·n²/N
//	allgather, ring (mpi-c):                   V = 2·(N−1)/N·e·n²
//	complete (the whole arena, which holds C:
//	the translator moves only written data there):  V = 2·(N−1)·e·n²
//	M, incremental:  e·n² (C's pages, diffed, merged, injected once)
//	M, complete:     N·e·n² (every node's whole arena, reduced and merged on the master)
//
// For the CAPE variants s is the ratio of the bytes the master really sent
// and received (cape run --stats) to the formula, which accounts for the
// delta encoding and for compression.
type model struct {
	t1    map[int]float64   // measured sequential time per size (median)
	a     float64           // seconds per multiply-add on one node, for sizes without t1
	bw    float64           // bytes per second through the master's link
	fits  map[Mode]modelFit // per mode
	notes []string          // how the fit went
}

type modelFit struct {
	m, d   float64 // seconds per merged byte, fixed seconds
	vScale float64 // measured bytes / formula bytes
	points int
}

const elem = 8.0

func volume(m Mode, n, nodes float64) float64 {
	k := nodes - 1
	switch m {
	case MPIGo, Incremental:
		return k * elem * n * n * (1/nodes + 1)
	case MPIGoGather:
		return k * elem * n * n / nodes
	case MPIC:
		return 2 * k / nodes * elem * n * n
	case Complete:
		return 2 * k * elem * n * n
	}
	return 0
}

func merged(m Mode, n, nodes float64) float64 {
	switch m {
	case Incremental:
		return elem * n * n
	case Complete:
		return nodes * elem * n * n
	}
	return 0
}

// fitModel fits the model on the aggregated results. The compute term comes
// from the sequential runs (or, without any, from the distributed runs'
// per-node compute); the communication terms are fitted on the master's
// measured communication time (Sample.Comm: create + exchange for CAPE,
// gather + broadcast for mpi-go), which a shared machine's noise on the
// product does not drown.
func fitModel(t *table) *model {
	md := &model{t1: map[int]float64{}, fits: map[Mode]modelFit{}}
	if !md.fitCompute(t) {
		return md
	}

	// BW from the message-passing baseline: comm = V/BW + d.
	for _, base := range []Mode{MPIGo, MPIGoGather, Incremental} {
		var xs, ys []float64
		for k, s := range t.sorted() {
			if k.mode == base && k.nodes > 1 && s.comm > 0 {
				xs = append(xs, volume(base, float64(k.size), float64(k.nodes)))
				ys = append(ys, s.comm)
			}
		}
		if len(xs) == 0 {
			continue
		}
		b, d, ok := lsq(xs, ys)
		if !ok || b <= 0 || d < 0 {
			var r []float64
			for i := range xs {
				r = append(r, ys[i]/xs[i])
			}
			b, d = median(r), 0
		}
		md.bw = 1 / b
		if base != Incremental {
			md.fits[base] = modelFit{d: d, vScale: 1, points: len(xs)}
		}
		md.notes = append(md.notes, fmt.Sprintf("bandwidth fitted on the communication time of %s (%d points)", base, len(xs)))
		break
	}
	if md.bw == 0 {
		md.bw = 1e9
		md.notes = append(md.notes, "bandwidth not fitted (no multi-node communication time): 1 GB/s assumed")
	}
	for _, m := range []Mode{MPIGo, MPIGoGather, Complete, Incremental} {
		if _, done := md.fits[m]; done {
			continue
		}
		f := modelFit{vScale: 1}
		var scales, xs, ys []float64
		for k, s := range t.sorted() {
			if k.mode == m && k.nodes > 1 && s.sent+s.received > 0 {
				scales = append(scales, (s.sent+s.received)/volume(m, float64(k.size), float64(k.nodes)))
			}
		}
		if len(scales) > 0 {
			f.vScale = median(scales)
		}
		for k, s := range t.sorted() {
			if k.mode != m || k.nodes < 2 || s.comm <= 0 {
				continue
			}
			n, nodes := float64(k.size), float64(k.nodes)
			xs = append(xs, merged(m, n, nodes))
			ys = append(ys, s.comm-f.vScale*volume(m, n, nodes)/md.bw)
		}
		if len(xs) == 0 {
			continue
		}
		f.points = len(xs)
		if mm, d, ok := lsq(xs, ys); ok && mm >= 0 && d >= 0 {
			f.m, f.d = mm, d
		} else {
			var r []float64
			for i := range xs {
				if xs[i] > 0 {
					r = append(r, max(0, ys[i])/xs[i])
				}
			}
			if len(r) > 0 {
				f.m = median(r)
			} else {
				f.d = max(0, median(ys))
			}
		}
		md.fits[m] = f
	}
	return md
}

// fitCompute sets T1(n) from the sequential runs and the rate a from them,
// or from the distributed runs' per-node compute when there is no
// sequential run; it returns false when there is nothing to fit a on.
func (md *model) fitCompute(t *table) bool {
	var rates []float64
	for _, n := range t.sizes {
		if s, ok := t.get(n, 1, Seq); ok {
			md.t1[n] = s.median
			rates = append(rates, s.median/math.Pow(float64(n), 3))
		}
	}
	if len(rates) == 0 {
		for k, s := range t.sorted() {
			if k.mode != MPIC && k.mode.distributed() && s.compute > 0 {
				rates = append(rates, s.compute*float64(k.nodes)/math.Pow(float64(k.size), 3))
			}
		}
		if len(rates) == 0 {
			md.notes = append(md.notes, "no sequential run and no per-node compute time to fit the compute rate on")
			return false
		}
		md.notes = append(md.notes, fmt.Sprintf("no sequential run: T1(n) = a·n³ with a fitted on the per-node compute time of the distributed runs (%d cells)", len(rates)))
	}
	md.a = median(rates)
	return true
}

// seqTime is T1(n), the model's sequential time at size n.
func (md *model) seqTime(n int) float64 {
	if t, ok := md.t1[n]; ok {
		return t
	}
	return md.a * math.Pow(float64(n), 3)
}

// predict returns the model's time for m at size n on nodes nodes; it is
// never below seqTime(n)/nodes.
func (md *model) predict(m Mode, n, nodes int) (float64, bool) {
	if md.a == 0 {
		return 0, false
	}
	c := md.seqTime(n)
	switch m {
	case Seq:
		return c, true
	case Goroutines, OMPC:
		return 0, false
	}
	f, ok := md.fits[m]
	if !ok {
		return 0, false
	}
	x, k := float64(n), float64(nodes)
	return c/k + f.vScale*volume(m, x, k)/md.bw + f.m*merged(m, x, k) + f.d, true
}

// lsq fits y = b·x + d by least squares; ok is false when x does not vary.
func lsq(xs, ys []float64) (b, d float64, ok bool) {
	n := float64(len(xs))
	if n < 2 {
		return 0, 0, false
	}
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
		sxx += xs[i] * xs[i]
		sxy += xs[i] * ys[i]
	}
	den := n*sxx - sx*sx
	if math.Abs(den) < 1e-12*math.Max(1, n*sxx) {
		return 0, 0, false
	}
	b = (n*sxy - sx*sy) / den
	d = (sy - b*sx) / n
	return b, d, true
}
