package monitor

import (
	"runtime"
	"sync"
)

// parallelMin is the amount of memory below which copies and comparisons
// run on the calling goroutine: under it, starting goroutines costs more
// than the memory bandwidth a second core adds.
const parallelMin = 8 << 20

// workers returns how many goroutines should share n bytes of work.
func workers(n int) int {
	w := min(runtime.GOMAXPROCS(0), n/parallelMin)
	return max(w, 1)
}

// copyParallel copies src into dst (same length), split across cores.
func copyParallel(dst, src []byte) {
	w := workers(len(src))
	if w == 1 {
		copy(dst, src)
		return
	}
	var wg sync.WaitGroup
	chunk := (len(src) + w - 1) / w
	for lo := 0; lo < len(src); lo += chunk {
		hi := min(lo+chunk, len(src))
		wg.Go(func() { copy(dst[lo:hi], src[lo:hi]) })
	}
	wg.Wait()
}

// diffParallel is diffPages split across cores; the result is in increasing
// order.
func diffParallel(dst []int, mem, buf []byte, pageSize, from, to int) []int {
	if workers((to-from)*pageSize) == 1 {
		return diffPages(dst, mem, buf, pageSize, from, to) // no closure to allocate
	}
	return splitDiff(dst, pageSize, from, to, func(d []int, lo, hi int) []int {
		return diffPages(d, mem, buf, pageSize, lo, hi)
	})
}

// splitDiff runs diff (which appends the pages of [lo, hi) it finds) over
// the pages [from, to), split across cores where they are many; the
// result is in increasing order.
func splitDiff(dst []int, pageSize, from, to int, diff func(dst []int, lo, hi int) []int) []int {
	w := workers((to - from) * pageSize)
	if w == 1 {
		return diff(dst, from, to)
	}
	parts := make([][]int, w)
	per := (to - from + w - 1) / w
	var wg sync.WaitGroup
	for i := range w {
		lo := from + i*per
		hi := min(lo+per, to)
		if lo >= hi {
			break
		}
		wg.Go(func() { parts[i] = diff(nil, lo, hi) })
	}
	wg.Wait()
	for _, p := range parts {
		dst = append(dst, p...)
	}
	return dst
}
