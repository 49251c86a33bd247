// Command verifyclauses exercises what the --verify re-run must repeat
// faithfully: every clause, labels, schedules, loop forms and sections.
// It is correct, so `cape run --verify` must accept it and print what the
// plain sequential program prints.
package main

import "fmt"

var found int64 = -1

func rows(a []int64, n int) {
	//cape:parallel for schedule(dynamic, 3)
outer:
	for i := 0; i < n; i++ {
	inner:
		for j := 0; j < n; j++ {
			if j > i {
				continue outer
			}
			if j == 5 {
				break inner
			}
			a[i*n+j] = int64(i*n + j)
		}
	}
}

func main() {
	n := 40
	a := make([]int64, n*n)
	rows(a, n)

	var best [2]int64
	//cape:parallel for
	for i := range 2 {
		best[i] = int64(i)
	}

	var j int
	var tmp int64
	scale := int64(3)
	total := int64(10)
	high := int64(-1)
	last := -1
	//cape:parallel for schedule(static, 4) private(tmp) firstprivate(scale) lastprivate(last, best) reduction(+:total) reduction(max:high)
	for j = 0; j < n; j++ {
		tmp = a[j*n] * scale
		a[j*n+1] = tmp
		total += tmp
		high = max(high, tmp)
		last = j
		best = [2]int64{}
		best[j%2] = tmp
	}

	b := make([]float64, n)
	//cape:parallel for schedule(guided)
	for i, v := range a[:n] {
		b[i] = float64(v) / 2
	}

	var who int
	var count int
	var extra int
	//cape:parallel sections private(tmp) lastprivate(who)
	{
		//cape:section
		{
		scan:
			for k := range n {
				tmp = a[k]
				if tmp > 3 {
					break scan
				}
				b[k] += float64(tmp)
			}
			who = 1
		}
		//cape:section
		{
			count = n
			who = 2
		}
		//cape:section
		{
			extra = 2 * n // the last section leaves who as the one before set it
		}
	}
	// Lastprivate variables that some iterations assign: the latest
	// assignment's value, as go run leaves it, or the value from before.
	lastThird := -1
	never := int64(-7)
	//cape:parallel for schedule(dynamic, 5) lastprivate(lastThird, never, found)
	for i := 0; i < n; i++ {
		if i%3 == 1 && i < n/3 {
			lastThird = i
			found = a[i*n]
		}
		if i < 0 {
			never = int64(i)
		}
	}
	// Both firstprivate and lastprivate: copies that start from the
	// value, handed over from the last iteration.
	acc := int64(5)
	//cape:parallel for firstprivate(acc) lastprivate(acc)
	for i := 0; i < n; i++ {
		acc = a[i*n] + int64(i)
		a[i*n+2] = acc
	}
	step := int64(3)
	//cape:parallel for firstprivate(step) lastprivate(step)
	for i := 0; i < n; i++ {
		a[i*n+3] = step * int64(i)
		if i == n-1 {
			step = a[i*n+3] + 1 // the last iteration's: no later one reads it
		}
	}
	fmt.Println(a[:2*n], best, j, total, high, last, b[:n], who, count, extra, lastThird, never, found, acc, step)
}
