package main

import "fmt"

// Private arrays assigned element by element and private slices reset to
// their own array: an element the iteration reads before assigning it, or
// a reslice past the length, reads what an earlier iteration left, which
// go run's one variable holds and a node's copy does not.

type pair struct{ x, y int }

func main() {
	n := 16
	out := make([]int, n)
	var tmp [4]int
	//cape:parallel for private(tmp)
	for i := 0; i < n; i++ {
		tmp[i%4] = i
		out[i] = tmp[0] + tmp[1] + tmp[2] + tmp[3] // want "tmp is private in the parallel loop, but an iteration reads tmp\\[0\\] here without assigning it first \\(it assigns tmp\\[i%4\\] at err_private_elems.go:18\\).*assign the whole array at the start of the iteration \\(tmp = \\[4\\]int\\{\\}\\), or declare it inside the loop"
	}
	var w [2]int
	//cape:parallel for lastprivate(w)
	for i := 0; i < n; i++ {
		w[1] = i
		if i%2 == 0 {
			w[0] = i
		}
		out[i] = w[0] + w[1] // want "w is lastprivate in the parallel loop, but an iteration reads w\\[0\\] here without assigning it first"
	}
	coef := [2]int{3, 5}
	//cape:parallel for firstprivate(coef)
	for i := 0; i < n; i++ {
		coef[i%2] = i
		out[i] = coef[1] // want "coef is firstprivate in the parallel loop, but an iteration reads coef\\[1\\] here without assigning it first"
	}
	var ps [2]pair
	//cape:parallel for private(ps)
	for i := 0; i < n; i++ {
		ps[0].x = i
		ps[1] = pair{i, i}
		out[i] = ps[0].x + ps[1].y + ps[0].y // want "ps is private in the parallel loop, but an iteration reads ps\\[0\\].y here without assigning it first"
	}
	var sq [2]int
	//cape:parallel for private(sq)
	for i := 0; i < n; i++ {
		sq[0] = i
		out[i] = sum2(sq) // want "sq is private in the parallel loop, but an iteration reads sq here without assigning it first"
	}
	var buf []int
	//cape:parallel for private(buf)
	for i := 0; i < n; i++ {
		buf = buf[:0]
		buf = append(buf, i)
		if i%2 == 0 {
			buf = append(buf, i*i)
		}
		full := buf[:cap(buf)] // want "buf is private in the parallel loop and reset by buf = buf\\[:0\\] at err_private_elems.go:52, which keeps its array: buf\\[:cap\\(buf\\)\\] here may reach past its length"
		out[i] = full[len(full)-1]
	}
	var best [2]int
	//cape:parallel for lastprivate(best)
	for i := 0; i < n; i++ {
		best[i%2] = out[i] // want "best is lastprivate in the parallel loop, but an iteration assigns only part of it here \\(best\\[i%2\\] = out\\[i\\]\\) and may not assign the whole array: the node that ran the last iteration hands back its copy.*go run's one variable keeps what earlier iterations assigned; assign the whole array at the start of the iteration \\(best = \\[2\\]int\\{\\}\\), or keep it shared and write one element per iteration into a result array"
	}
	var pt pair
	//cape:parallel for lastprivate(pt)
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			pt.x = i // want "pt is lastprivate in the parallel loop, but an iteration assigns only part of it here \\(pt.x = i\\) and may not assign the whole struct"
		} else {
			pt.y = i
		}
	}
	var two [2]int
	//cape:parallel for lastprivate(two)
	for i := 0; i < n; i++ {
		two[0] = i // want "two is lastprivate in the parallel loop, but an iteration assigns only part of it here"
		if i%3 == 0 {
			continue // leaves two[1] as an earlier iteration set it
		}
		two[1] = i
	}
	var cond [2]int
	//cape:parallel for lastprivate(cond)
	for i := 0; i < n; i++ {
		if i%3 == 0 {
			cond = [2]int{}
			cond[0] = i // want "cond is lastprivate in the parallel loop, but an iteration assigns only part of it here"
		}
	}
	fl := [2]int{7, 9}
	//cape:parallel for firstprivate(fl) lastprivate(fl)
	for i := 0; i < n; i++ {
		fl[i%2] = i // want "fl is lastprivate in the parallel loop, but an iteration assigns only part of it here"
	}
	var fb [3]int
	//cape:parallel for lastprivate(fb)
	for i := 0; i < n; i++ {
		for k := range fb {
			fb[k] = i // want "fb is lastprivate in the parallel loop, but an iteration assigns only part of it here"
			if k == i%3 {
				break // the fill may end early
			}
		}
	}
	var sc [3]int
	//cape:parallel for lastprivate(sc)
	for i := 0; i < n; i++ {
		copy(sc[:], out[i:]) // want "sc is lastprivate in the parallel loop, but an iteration assigns only part of it here \\(copy\\(sc\\[:\\], out\\[i:\\]\\)\\)"
	}
	var mp pair
	//cape:parallel for lastprivate(mp)
	for i := 0; i < n; i++ {
		if i == 2 {
			mp = pair{i, i}
		}
		if i == 6 {
			mp.setX(i) // want "mp is lastprivate in the parallel loop, but an iteration assigns only part of it here \\(mp.setX\\(i\\)\\)"
		}
	}
	var maybe int
	//cape:parallel for private(maybe)
	for i := 0; i < n; i++ {
		fillIf(&maybe, i%4 == 0, i) // want "maybe is private in the parallel loop, but an iteration uses it before assigning it"
		out[i] = maybe
	}
	accepted(n, out)
	fmt.Println(out, best, pt, two, cond, fl, fb, sc, mp)
}

func (p *pair) setX(v int) { p.x = v }

// fillIf assigns *p only if c: not an out parameter.
func fillIf(p *int, c bool, v int) {
	if c {
		*p = v
	}
}

func sum2(a [2]int) int { return a[0] + a[1] }

// accepted holds the shapes that assign what they read first.
func accepted(n int, out []int) {
	var tmp [4]int
	//cape:parallel for private(tmp)
	for i := 0; i < n; i++ {
		tmp = [4]int{} // whole at the top of the body
		tmp[i%4] = i
		out[i] = tmp[0] + tmp[1] + tmp[2] + tmp[3]
	}
	//cape:parallel for
	for i := 0; i < n; i++ {
		var own [4]int // declared in the body
		own[i%4] = i
		out[i] = own[0] + own[3]
	}
	var m [2][2]int
	var w [2]int
	var ps [2]pair
	//cape:parallel for private(m, w, ps, tmp)
	for i := 0; i < n; i++ {
		m[0][0], m[0][1] = i, i+1 // every element, by constant indices
		m[1] = [2]int{i, 2}
		if i%2 == 0 { // both branches assign w[0]
			w[0] = i
		} else {
			w[0] = -i
		}
		w[1] = 1
		k := i % 4
		tmp[k] = i // the same index, not changed in between
		ps[0].x, ps[0].y = i, 1
		ps[1] = ps[0]
		s := tmp[k] + sum2(w) + ps[1].y
		for a := range 2 {
			for b := range 2 {
				s += m[a][b]
			}
		}
		out[i] = s
	}
	coef := [2]int{3, 5}
	//cape:parallel for firstprivate(coef)
	for i := 0; i < n; i++ {
		coef[0] = i // coef[1] is never written: every copy holds 5
		out[i] += coef[0] * coef[1]
	}
	var buf []int
	//cape:parallel for private(buf)
	for i := 0; i < n; i++ {
		buf = append(buf[:0], i, i+1)
		out[i] += len(buf[:len(buf)-1]) + buf[0]
	}
	var best [2]int
	var ws [3]int
	var pt pair
	var cp [2]int
	//cape:parallel for lastprivate(best, ws, pt, cp)
	for i := 0; i < n; i++ {
		best = [2]int{} // whole at the top of the body
		if i%2 == 0 {
			pt = pair{}
		} else {
			pt = pair{1, 1}
		}
		best[i%2] = i
		copy(cp[:], out[:2]) // a source as long as cp: fills it
		cp[i%2]++
		pt.x = i  // pt assigned whole by both branches
		ws[2] = i // every element, by constant indices, before the continue
		ws[0], ws[1] = i, -i
		if i%5 == 0 {
			continue
		}
		ws[1]++
	}
	fmt.Println(best, ws, pt, cp)
	var fill [3]int
	//cape:parallel for lastprivate(fill)
	for i := 0; i < n; i++ {
		for k := range fill { // a fill loop assigns it whole
			fill[k] = i + k
			if k == 1 {
				continue
			}
		}
		fill[i%3]++
	}
	fmt.Println(fill)
}
