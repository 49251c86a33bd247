package main

import "fmt"

// Private copies whose values would differ from go run's: a value carried
// from the node's previous iteration, or read after the region.

func average(xs []int, m *float64) {
	*m = 0
	for _, x := range xs {
		*m += float64(x)
	}
	*m /= float64(len(xs))
}

func main() {
	n := 16
	out := make([]int, n)
	base := 10
	scratch := [4]int{1, 2, 3, 4}
	//cape:parallel for firstprivate(base, scratch)
	for i := 0; i < n; i++ {
		scratch[i%4] += i // want "scratch is firstprivate in the parallel loop and an iteration writes it"
		base++            // want "base is firstprivate in the parallel loop and an iteration writes it"
		out[i] = scratch[0] + base
	}
	tmp := 5
	//cape:parallel for private(tmp)
	for i := 0; i < n; i++ {
		out[i] = tmp * 2 // want "tmp is private in the parallel loop, but an iteration uses it before assigning it"
	}
	acc := 0
	var buf []int
	//cape:parallel for firstprivate(base) private(acc, buf)
	for i := 0; i < n; i++ {
		acc = base + i // assigned whole first: no carry
		if i%2 == 0 {
			acc++
		}
		buf = append(buf[:0], acc)
		out[i] = acc + buf[0]
	}
	fmt.Println(acc, out) // want "acc is private in the parallel region at err_privates.go:[0-9]+ and written there, but read after it"
	var cache []int
	var mean float64
	//cape:parallel for private(cache, mean)
	for i := 0; i < n; i++ {
		if cache == nil {
			cache = make([]int, 4) // made once per node, filled each iteration
		}
		for k := range cache {
			cache[k] = i * k
		}
		average(cache, &mean) // assigns *m first
		out[i] = int(mean)
	}
	t := 0
	var acc2 []int
	//cape:parallel for private(t, acc2)
	for i := 0; i < n; i++ {
		if out[i] > 0 {
			t = out[i]
		}
		acc2 = append(acc2, i) // want "acc2 is private in the parallel loop, but an iteration uses it before assigning it"
		out[i] = t + len(acc2) // want "t is private in the parallel loop, but an iteration uses it before assigning it"
	}
	var four [4]int
	var k, v, j int
	//cape:parallel for private(four, k, v, j)
	for i := 0; i < n; i++ {
		copy(four[:], out[:4]) // fills it
		s := 0
		for k, v = range four {
			s += k * v
		}
		for j = 0; j < 2; j++ {
			s += j
		}
		out[i] += s
	}
	sum, best := 0, 0
	//cape:parallel for reduction(+:sum) reduction(max:best)
	for i := 0; i < n; i++ {
		sum += out[i]
		sum = sum + 1
		best = max(best, out[i])
		if sum > 100 { // want "sum is a reduction variable of the parallel loop, but read here other than to update it"
			out[i] = 0
		}
	}
	fmt.Println(sum, best)
	factor := 0.5
	//cape:parallel for firstprivate(factor)
	for i := 0; i < n; i++ {
		out[i] = int(float64(i) * factor)
		factor += 0 // leaves it as it is
	}
	var work [4]int
	//cape:parallel for private(work)
	for i := 0; i < n; i++ {
		for k := range work {
			work[k] = i + k // a buffer filled before it is read
		}
		out[i] = work[0] + work[3]
	}
	last := 0
	//cape:parallel for lastprivate(last)
	for i := 0; i < n; i++ {
		last = i
	}
	fmt.Println(last, base, scratch, tmp, t)
}

type stats struct{ n, sum int }

var scratchAll int

func report() { fmt.Println(scratchAll) } // want "scratchAll is private in the parallel region at err_privates.go:126 and written there, but read after it"

// later holds the reads that come after a region other than below it: in
// another function, in a function literal, in the next iteration of a loop
// around it; and the uses before assigning that a lastprivate variable or
// a struct's field makes.
func later(n int) {
	out := make([]int, n)
	//cape:parallel for private(scratchAll)
	for i := 0; i < n; i++ {
		scratchAll = i * 2
		out[i] = scratchAll
	}
	report()
	x := -1
	show := func() { fmt.Println(x) } // want "x is private in the parallel region at err_privates.go:134 and written there, but read after it"
	//cape:parallel for private(x)
	for i := 0; i < n; i++ {
		x = i * 3
		out[i] = x
	}
	show()
	y := 0
	for step := 0; step < 3; step++ {
		fmt.Println(y) // want "y is private in the parallel region at err_privates.go:143 and written there, but read after it"
		//cape:parallel for private(y)
		for i := 0; i < n; i++ {
			y = i + step
			out[i] += y
		}
	}
	for step := 0; step < 3; step++ {
		z := step // each step's own z: nothing carried
		fmt.Println(z)
		func() { fmt.Println(z) }()
		//cape:parallel for private(z)
		for i := 0; i < n; i++ {
			z = i + step
			out[i] += z
		}
	}
	w := 0
	//cape:parallel for lastprivate(w)
	for i := 0; i < n; i++ {
		out[i] = w // want "w is lastprivate in the parallel loop, but an iteration uses it before assigning it"
		w = i
	}
	fmt.Println(w)
	var st, ok stats
	//cape:parallel for private(st, ok)
	for i := 0; i < n; i++ {
		st.n = i
		st.sum += i % 3 // want "st is private in the parallel loop, but an iteration uses st.sum before assigning it"
		ok.n, ok.sum = i, i*2
		out[i] = st.n + st.sum + ok.sum + ok.n
	}
}

func fill(t *[4]int, i int) {
	for k := range t {
		t[k] = i * (k + 1)
	}
}

func half(t *[4]int, i int) {
	for k := range t {
		t[k] += i // reads what the array held
	}
}

// filled hands a private array to functions that fill it: one assigns
// every element first, one adds to what it held.
func filled(n int) {
	out := make([]int, n)
	var tmp, acc [4]int
	//cape:parallel for private(tmp, acc)
	for i := 0; i < n; i++ {
		fill(&tmp, i)
		half(&acc, i) // want "acc is private in the parallel loop, but an iteration uses it before assigning it"
		out[i] = tmp[0] + tmp[3] + acc[1]
	}
}

// argmin assigns its private best in the first pass of an inner loop that
// runs at least once; with a bound that may be zero, or a test of another
// pass, the value would carry.
func argmin(n, w int, a []float64) {
	arg := make([]int, n)
	m := 8
	var best, other, third float64
	var bk int
	//cape:parallel for private(best, bk, other, third)
	for i := 0; i < n; i++ {
		for k := 0; k < m; k++ {
			if v := a[i*m+k]; k == 0 || v < best {
				best, bk = v, k
			}
		}
		for k := 0; k < w; k++ {
			if k == 0 || a[k] < other { // want "other is private in the parallel loop, but an iteration uses it before assigning it"
				other = a[k]
			}
		}
		for k := 0; k < m; k++ {
			if k == 1 || a[k] < third { // want "third is private in the parallel loop, but an iteration uses it before assigning it"
				third = a[k]
			}
		}
		arg[i] = bk + int(best+other+third)
	}
	fmt.Println(arg)
}

// both lists variables firstprivate and lastprivate: copies that start
// from the value and are handed over, refused where an iteration would
// read what the node's previous one left.
func both(n int) {
	out := make([]int, n)
	base, scale, keep := 1000, 3, 7
	//cape:parallel for firstprivate(base, scale, keep) lastprivate(base, scale, keep)
	for i := 0; i < n; i++ {
		out[i] = base + i + scale*keep // want "base is firstprivate and lastprivate in the parallel loop, but an iteration uses it before assigning it"
		base = 2000 + i
		if i == n-1 {
			scale = out[i] + 1
		}
	}
	fmt.Println(base, scale, keep)
}

var shared0 float64

// scratchA and scratchB use one package-level variable as the private
// scratch of their loops.
func scratchA(out []float64) {
	//cape:parallel for private(shared0)
	for i := range out {
		shared0 = float64(i) * 2
		out[i] = shared0 + 1
	}
}

func scratchB(out []float64) {
	//cape:parallel for private(shared0)
	for i := range out {
		shared0 = float64(i) * 3
		out[i] += shared0
	}
}

// twoLoops privatizes one local in two regions one after the other, in a
// loop: the second region's uses are its own copy's.
func twoLoops(out []float64) {
	var t float64
	for step := 0; step < 2; step++ {
		//cape:parallel for private(t)
		for i := range out {
			t = float64(i)
			out[i] = t
		}
		//cape:parallel for private(t)
		for i := range out {
			t = float64(i) * 2
			out[i] += t
		}
	}
}

// extremes keeps the largest or smallest value in the if statement form
// of max and min, on integers only.
func extremes(out []int) {
	n := len(out)
	hi, lo, off, down, other, elsed, called := 0, 1<<20, 0, 0, 0, 0, 0
	var fmax float64
	//cape:parallel for reduction(max:hi, off, down, other, elsed, called, fmax) reduction(min:lo)
	for i := 0; i < n; i++ {
		if out[i]*2 > hi { // hi = max(hi, out[i]*2)
			hi = out[i] * 2
		}
		if lo >= out[i] { // lo = min(lo, out[i])
			lo = out[i]
		}
		if out[i] > off { // want "off is a reduction variable of the parallel loop, but read here other than to update it"
			off = out[i] + 1
		}
		if out[i] < down { // want "down is a reduction variable of the parallel loop, but read here other than to update it"
			down = out[i]
		}
		if other < out[i] { // want "other is a reduction variable of the parallel loop, but read here other than to update it"
			other = out[i]
			out[i]++
		}
		if out[i] > elsed { // want "elsed is a reduction variable of the parallel loop, but read here other than to update it"
			elsed = out[i]
		} else {
			out[i] = 0
		}
		if next(out) > called { // called = max(called, next(out)): next returns len(out)
			called = next(out)
		}
		if float64(out[i]) > fmax { // want "fmax is a max reduction variable of the parallel loop, compared here to keep the larger value: on a floating-point variable"
			fmax = float64(out[i])
		}
	}
	fmt.Println(hi, lo, off, down, other, elsed, called, fmax)
}

// next reads a value that the loop's iterations do not write.
func next(a []int) int { return len(a) }

// coveredReads: every read of u and w follows an assignment of the
// iteration's, in an if or an inner loop.
func coveredReads(out []int) {
	var u, w float64
	//cape:parallel for private(u, w)
	for i := 0; i < len(out); i++ {
		if i%2 == 0 {
			u = float64(i) * 0.5
			out[i] = int(u)
		}
		for k := 0; k < 3; k++ {
			w = float64(k + i)
			out[i] += int(w)
		}
		if u = float64(i * i); u > 20 {
			out[i] += int(u)
		}
	}
}

// jumpsAndEmptyRanges: a goto may jump over the assignment, and a range
// over a slice may have no element to assign; a range over an array, or
// the uses inside the range's body, are assigned.
func jumpsAndEmptyRanges(x []float64, rows [][]int) {
	out := make([]float64, len(x))
	var t float64
	//cape:parallel for private(t)
	for i := 0; i < len(x); i++ {
		if x[i] > 5 {
			goto store
		}
		t = x[i]
	store:
		out[i] = t // want "t is private in the parallel loop, but an iteration uses it before assigning it"
	}
	last := make([]int, len(rows))
	var v, w, k int
	//cape:parallel for private(v, w, k)
	for i := 0; i < len(rows); i++ {
		for _, v = range rows[i] {
		}
		for _, w = range rows[i] {
			last[i] += w
		}
		for k = range [3]int{} {
		}
		last[i] += v + k // want "v is private in the parallel loop, but an iteration uses it before assigning it"
	}
	fmt.Println(out, last)
}

// aliasesTaken: a pointer to a clause variable, taken before the region,
// reaches the variable itself, not the node's copy.
func aliasesTaken(x []int) {
	best, sum, t := 0, 0, 0
	cur, p, q := &best, &sum, &t
	seen := make([]int, len(x))
	//cape:parallel for reduction(max:best) reduction(+:sum) private(t)
	for i := 0; i < len(x); i++ {
		if *cur < 6 && x[i] > best { // want "cur points to best \\(cur, p, q := &best, &sum, &t at err_privates.go:[0-9]+\\), which is in the reduction clause of the parallel loop"
			best = x[i]
		}
		sum += x[i]
		seen[i] = *p // want "p points to sum"
		t = x[i] * 2
		seen[i] += *q // want "q points to t"
	}
	fmt.Println(best, sum, seen)
}

// aliasOfReadOnly: a pointer to a firstprivate variable the region never
// writes reads the value every copy holds.
func aliasOfReadOnly(x []int) {
	scale := 3
	p := &scale
	out := make([]int, len(x))
	//cape:parallel for firstprivate(scale)
	for i := 0; i < len(x); i++ {
		out[i] = x[i] * *p * scale
	}
	fmt.Println(out)
}

// leavingBranches: a branch that ends in continue leaves the other's
// assignment; one that goes on without assigning does not.
func leavingBranches(x []int) {
	out := make([]int, len(x))
	var v, w int
	//cape:parallel for private(v, w)
	for i := 0; i < len(x); i++ {
		if x[i] > 0 {
			v = x[i] * x[i]
		} else {
			continue
		}
		if x[i] > 5 {
			w = x[i]
		} else {
			out[i] = -1
		}
		out[i] += v + w // want "w is private in the parallel loop, but an iteration uses it before assigning it"
	}
	fmt.Println(out)
}

// switchBranches: a switch with a default whose every clause assigns (or
// ends the iteration) assigns; one without a default, one clause leaving
// the switch by break, or one falling through, does not.
func switchBranches(x []int, s []any) {
	out := make([]int, len(x))
	var a, b, c, d, e, f int
	//cape:parallel for private(a, b, c, d, e, f)
	for i := 0; i < len(x); i++ {
		switch x[i] % 3 {
		case 0:
			a = 1
		case 1:
			a, b = 2, 1
		default:
			if x[i] < 0 {
				continue
			}
			a = 3
		}
		switch v := s[i].(type) {
		case int:
			c = v
		default:
			c = 0
		}
		switch {
		case x[i] > 0:
			d = 1
		}
		switch {
		case x[i] > 1:
			if x[i] > 9 {
				break
			}
			e = 1
		default:
			e = 2
		}
		switch {
		case x[i] > 2:
			fallthrough
		default:
			f = 1
		}
		out[i] = a + c
		out[i] += b // want "b is private in the parallel loop, but an iteration uses it before assigning it"
		out[i] += d // want "d is private in the parallel loop, but an iteration uses it before assigning it"
		out[i] += e // want "e is private in the parallel loop, but an iteration uses it before assigning it"
		out[i] += f // want "f is private in the parallel loop, but an iteration uses it before assigning it"
	}
	fmt.Println(out)
}

// lastInClosure: a lastprivate variable that some iterations assign in a
// function literal cannot have its latest assignment noted.
func lastInClosure(n int) int {
	last := -1
	//cape:parallel for lastprivate(last)
	for i := 0; i < n; i++ {
		if i%7 == 3 {
			func() { last = i }() // want "last is lastprivate in the parallel loop, but not every iteration assigns it, and CAPE cannot note which iteration assigned it last through this write \\(last = i, in a function literal\\)"
		}
	}
	return last
}

// stringLength: a string's length is part of its value, which an
// iteration reading it before assigning it carries; firstprivate and
// lastprivate together take a string.
func stringLength(n int) (string, string) {
	out := make([]int, n)
	var s string
	tag := "none"
	//cape:parallel for private(s) firstprivate(tag) lastprivate(tag)
	for i := 0; i < n; i++ {
		out[i] = len(s) // want "s is private in the parallel loop, but an iteration uses it before assigning it"
		s = fmt.Sprint(i)
		tag = s + "!"
	}
	fmt.Println(out)
	return s, tag
}

// firstprivateView: a firstprivate slice whose elements the iterations
// write: its copies reach the shared array.
func firstprivateView(data []int) {
	view := data[5:15]
	//cape:parallel for firstprivate(view)
	for i := 0; i < len(view); i++ {
		view[i] = i * 3 // want "view is firstprivate in the parallel loop, and the iterations write through it \\(view\\[i\\] = i \\* 3\\): a copy of a slice reaches the same memory as view itself"
	}
}

type inner struct{ X, Y int }

type outer struct {
	In inner
	A  int
}

// partsAndConditions: a lastprivate read after an assignment only some
// iterations make; a struct's part read after another part, or after a
// branch that assigned only a sibling; a firstprivate struct's part read
// after a branch that may write it; a lastprivate assigned by a range.
func partsAndConditions(n int, vals []int) {
	out := make([]int, n)
	t, x := -1, -1
	var s, f outer
	//cape:parallel for lastprivate(t) private(s) firstprivate(f)
	for i := 0; i < n; i++ {
		if i%2 == 1 {
			t = i
		}
		out[i] = t // want "t is lastprivate in the parallel loop, but an iteration uses it before assigning it"
		s.In.X = i
		out[i] += s.In.Y // want "s is private in the parallel loop, but an iteration uses s.In before assigning it"
		if i%3 == 0 {
			f.A = i
		} else {
			f = outer{A: i}
		}
		out[i] += f.In.X // want "f is firstprivate in the parallel loop and an iteration writes it"
	}
	//cape:parallel for lastprivate(x)
	for i := 0; i < n; i++ {
		for _, x = range vals[:i%3] { // want "x is lastprivate in the parallel loop, but not every iteration assigns it, and CAPE cannot note which iteration assigned it last through this write \\(.*, in a range clause\\)"
			out[i] += x
		}
	}
	fmt.Println(out, t, x)
}

// switchBreaks: a break out of a switch at the end of an if's branch
// leaves with what that branch and the statements before it assigned.
func switchBreaks(n int) []int {
	out := make([]int, n)
	var t, u int
	//cape:parallel for private(t, u)
	for i := 0; i < n; i++ {
		switch {
		case i%3 == 1:
			if i > 50 {
				t = -i
				break
			}
			t, u = i, i
		default:
			t, u = 3*i, i
			break
		}
		out[i] = t
		out[i] += u // want "u is private in the parallel loop, but an iteration uses it before assigning it"
	}
	return out
}

type lcg struct{ s uint64 }

// sharedGenerator: a generator's state in a shared struct, read into a
// temporary and written back by every iteration, carries from one to the
// next.
func sharedGenerator(n int) []uint64 {
	g := &lcg{s: 7}
	a := make([]uint64, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		v := g.s*6364136223846793005 + 1442695040888963407
		g.s = v // want "g.s is read at err_privates.go:[0-9]+ and then written here, at the same place in every iteration of the parallel loop: a loop-carried dependence"
		a[i] = v >> 33
	}
	return a
}
