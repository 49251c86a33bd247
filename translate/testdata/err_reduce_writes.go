package main

import (
	"fmt"
	"math"
)

// A reduction variable may be written in the loop only by its operator's
// own update (s += e, s = s + e, s = e + s, s++, m = max(m, e), the if
// form of max and min), e not using it: each node's copy starts from the
// operator's identity and the copies are combined with the operator, so
// any other write gives another value than go run's.

type acc int

func (a *acc) add(x int) { *a += acc(x) }

func bump(p *int) { *p++ }

func twice(x int) int { return 2 * x }

func pair(x int) (int, bool) { return x, x > 0 }

// check writes a[i]: go run stops calling it once an || reduction's variable
// is true.
func check(a []int, i int) bool {
	a[i]++
	return a[i] > 50
}

func main() {
	a := make([]int, 100)
	for i := range a {
		a[i] = (i * 37) % 101
	}
	n := len(a)
	plain, called, timesd, self, flipped, scaled := 0, 0, 0, 0, 0, 0
	//cape:parallel for reduction(+:plain, called, timesd, self, flipped, scaled)
	for i := 0; i < n; i++ {
		plain = a[i]             // want "plain is a \\+ reduction variable of the parallel loop, but assigned here other than by its update"
		called = twice(called)   // want "called is a \\+ reduction variable"
		timesd *= a[i]           // want "timesd is a \\+ reduction variable"
		self += a[i] * self      // want "self is a \\+ reduction variable"
		flipped = a[i] - flipped // want "flipped is a \\+ reduction variable"
		scaled = scaled * a[i]   // want "scaled is a \\+ reduction variable"
	}
	fmt.Println(plain, called, timesd, self, flipped, scaled)
	hi, lo, top, pm := 0, 0, 0, 0
	//cape:parallel for reduction(max:hi, top, pm) reduction(min:lo)
	for i := 0; i < n; i++ {
		hi = a[i] - 5            // want "hi is a max reduction variable"
		lo = max(lo, a[i])       // want "lo is a min reduction variable"
		top = max(top, top+a[i]) // want "top is a max reduction variable"
		pm = max(pm, a[i]) + 1   // want "pm is a max reduction variable"
	}
	fmt.Println(hi, lo, top, pm)
	fa := make([]float64, n)
	fhi, flo, fwrong := 0.0, 0.0, 0.0
	//cape:parallel for reduction(max:fhi, fwrong) reduction(min:flo)
	for i := 0; i < n; i++ {
		fhi = math.Max(fhi, fa[i])       // accepted: math.Max is max on float64
		flo = math.Min(fa[i]*2, flo)     // accepted
		fwrong = math.Min(fwrong, fa[i]) // want "fwrong is a max reduction variable .* update it only as fwrong = max\\(fwrong, e\\), fwrong = math.Max\\(fwrong, e\\)"
	}
	fmt.Println(fhi, flo, fwrong)
	prod, quot, inc, minus := 1, 1, 1, 1
	var all, any, none bool
	//cape:parallel for reduction(*:prod, quot, inc, minus) reduction(||:all, none) reduction(&&:any)
	for i := 0; i < n; i++ {
		prod = prod + a[i]    // want "prod is a \\* reduction variable"
		quot /= 2             // want "quot is a \\* reduction variable"
		inc++                 // want "inc is a \\* reduction variable"
		minus -= a[i]         // want "minus is a \\* reduction variable"
		all = all && a[i] > 0 // want "all is a \\|\\| reduction variable"
		none = false          // want "none is a \\|\\| reduction variable.*none = none \\|\\| e or none = true"
		any = any || a[i] > 0 // want "any is a && reduction variable"
	}
	fmt.Println(prod, quot, inc, minus, all, any, none)
	found, every := false, true
	//cape:parallel for reduction(||:found) reduction(&&:every)
	for i := 0; i < n; i++ {
		found = found || check(a, i)                  // want "found is a \\|\\| reduction variable of the parallel loop, updated here as found \\|\\| check.a, i.: go run skips check.a, i. once found is true, where each node skips it only once its own copy is; write it the other way round .found = check.a, i. \\|\\| found.$"
		every = every && a[i] >= 0 && check(a, i)     // want "every is a && reduction variable of the parallel loop, updated here as every && a.i. >= 0 && check.a, i.: go run skips check.a, i. once every is false"
		found = found || math.IsInf(float64(a[i]), 0) // accepted: skipping math.IsInf changes nothing
	}
	fmt.Println(found, every, a[0])
	multi, other, viaLit, inLit, ok := 0, 0, 0, 0, false
	//cape:parallel for reduction(+:multi, viaLit, inLit) private(other)
	for i := 0; i < n; i++ {
		multi, other = multi+a[i], i // want "multi is a \\+ reduction variable"
		func() { viaLit = a[i] }()   // want "viaLit is a \\+ reduction variable of the parallel loop, but assigned here other than by its update"
		func() { inLit += a[i] }()   // want "inLit is a \\+ reduction variable of the parallel loop, but updated here in a function literal"
		a[i] += other
	}
	fmt.Println(multi, viaLit, inLit)
	// The address of the variable taken, explicitly or by a method: it
	// lives in the arena, and the node's copy is not what is written.
	ptr, passed := 0, 0
	var meth acc
	//cape:parallel for reduction(+:ptr, passed, meth) // want "reduction variable ptr also lives in the arena" "reduction variable passed also lives in the arena" "reduction variable meth also lives in the arena"
	for i := 0; i < n; i++ {
		p := &ptr // want "ptr is a reduction variable of the parallel loop, but read here other than to update it"
		*p += a[i]
		bump(&passed)  // want "passed is a reduction variable of the parallel loop, but read here"
		meth.add(a[i]) // want "meth is a reduction variable of the parallel loop, but read here"
	}
	fmt.Println(ptr, passed, meth)
	tuple := 0
	//cape:parallel for reduction(+:tuple)
	for i := 0; i < n; i++ {
		tuple, ok = pair(a[i]) // want "tuple is a \\+ reduction variable" "ok is assigned in iterations"
	}
	fmt.Println(tuple, ok)
	var hist [8]int
	cnt := make([]int, 4)
	var lows, highs, whole [4]int
	//cape:parallel for reduction(+:hist, cnt, whole) reduction(min:lows) reduction(max:highs)
	for i := 0; i < n; i++ {
		hist[i%8] = a[i]                        // want "hist is a \\+ reduction variable"
		cnt[i%4] = cnt[(i+1)%4] + a[i]          // want "cnt is a \\+ reduction variable"
		lows[i%4] = min(lows[(i+1)%4], a[i])    // want "lows is a min reduction variable"
		highs[a[i]%4] = max(highs[a[i]%4], i+1) // accepted
		whole = [4]int{1, 2, 3, 4}              // want "whole is a \\+ reduction variable"
	}
	fmt.Println(hist, cnt, lows, highs, whole)
	self2 := make([]int, 4)
	//cape:parallel for reduction(+:self2)
	for i := 0; i < n; i++ {
		self2[self2[0]%4]++ // want "self2 is a \\+ reduction variable of the parallel loop, but assigned here other than by its update: .* update it only as self2\\[i\\] \\+= e, .*, where neither i nor e uses self2"
	}
	fmt.Println(self2)
	sum, who := 0, 0
	//cape:parallel sections reduction(+:sum) lastprivate(who)
	{
		//cape:section
		{
			sum += 2
			who = 1
		}
		//cape:section
		{
			sum = 3 // want "sum is a \\+ reduction variable of the parallel sections, but assigned here other than by its update"
			who = 2
		}
	}
	fmt.Println(sum, who)
	accepted(a)
}

// accepted holds the updates each operator allows.
func accepted(a []int) {
	n := len(a)
	s1, s2, s3, s4, s5, s6, s7 := 0, 0, 0, 0, 0, 0, 0
	d1, d2 := 0, 0
	p1, p2, p3 := 1, 1, 1
	b1, b2, b3 := -1, 0, 0
	l1, l2, o1 := true, true, false
	m1, m2, m3, m4, n1 := 0, 0, 0, 0, 1<<20
	var h [4]int
	c := make([]int, 4)
	//cape:parallel for reduction(+:s1, s2, s3, s4, s5, s6, s7, h, c) reduction(-:d1, d2) reduction(*:p1, p2, p3) reduction(&:b1) reduction(|:b2) reduction(^:b3) reduction(&&:l1, l2) reduction(||:o1) reduction(max:m1, m2, m3, m4) reduction(min:n1)
	for i := 0; i < n; i++ {
		s1 += a[i]
		s2 -= a[i]
		s3 = s3 + a[i]
		s4 = a[i] + s4
		s5 = s5 + a[i] - 1
		s6++
		s7--
		s7 = (s7 - a[i]) + 2
		d1 -= a[i]
		d2 = d2 - a[i]
		d2 += i
		p1 *= 1 + a[i]%2
		p2 = p2 * 3
		p3 = 2 * p3 * 1
		b1 &= a[i] | 0xF0
		b1 = a[i] & b1
		b2 |= a[i]
		b3 = b3 ^ a[i]
		l1 = l1 && a[i] >= 0
		l2 = a[i] < 200 && l2
		l2 = check(a, i) && l2
		o1 = o1 || a[i] > 90
		if a[i] > 95 {
			o1 = true
		}
		if a[i] < 0 {
			l1 = false
		}
		m1 = max(m1, a[i])
		m2 = max(a[i], m2, i)
		if a[i] > m3 {
			m3 = a[i]
		}
		if m4 <= a[i]*2 {
			m4 = a[i] * 2
		}
		n1 = min(n1, a[i])
		h[i%4]++
		h[a[i]%4] += 2
		c[i%4] = c[i%4] + a[i]
		c[i%4] = a[i] + c[i%4]
	}
	fmt.Println(s1, s2, s3, s4, s5, s6, s7, d1, d2, p1, p2, p3, b1, b2, b3, l1, l2, o1, m1, m2, m3, m4, n1, h, c)
}

// guardedExtremes: the if form of min and max beside a guard that does not
// read the variable (the first index of the largest value); a guard that
// reads it is refused.
func guardedExtremes(x []int, best int) (int, int) {
	at, bad := len(x), len(x)
	//cape:parallel for reduction(min:at, bad)
	for i := 0; i < len(x); i++ {
		if x[i] == best && i < at {
			at = i
		}
		if bad > 3 && i < bad { // want "bad is a reduction variable of the parallel loop, but read here other than to update it"
			bad = i
		}
	}
	return at, bad
}

// worstScore: a guarded minimum whose term calls a function of its
// arguments alone; on a package-level reduction variable, which a callee
// could read, the call is refused.
func worstScore(n int) int {
	worst := 1 << 30
	//cape:parallel for reduction(min:worst, globalWorst)
	for i := 0; i < n; i++ {
		if scoreOf(i) < worst {
			worst = scoreOf(i)
		}
		if scoreOf(i) < globalWorst { // want "globalWorst is a reduction variable of the parallel loop, but read here other than to update it"
			globalWorst = scoreOf(i)
		}
	}
	return worst
}

var globalWorst = 1 << 30

func scoreOf(x int) int { return x * 7919 % 1000 }
