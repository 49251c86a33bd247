package main

import "fmt"

// Private copies in parallel sections that give go run's values: a
// lastprivate array or struct that the last section assigns whole before
// it writes a part (v = e, copy from a source at least as long, a fill
// loop, every element by constant indices, an if and its else, &v handed
// to a function that assigns it), or that only the last section writes
// and that starts from its value (firstprivate too); copies that each
// section assigns before it reads them.

type pt struct{ x, y int }

func fillAll(p *[3]int) {
	for k := range p {
		p[k] = 10 + k
	}
}

func main() {
	src := []int{4, 5, 6, 7}
	a := [3]int{7, 8, 9}
	b := [3]int{7, 8, 9}
	c := [3]int{7, 8, 9}
	d := [3]int{7, 8, 9}
	e := [3]int{7, 8, 9}
	f := [3]int{7, 8, 9}
	g := [3]int{7, 8, 9}
	h := [3]int{7, 8, 9}
	p := pt{7, 8}
	//cape:parallel sections lastprivate(a, b, c, d, e, f, p, h)
	{
		//cape:section
		{
			a[0], b[0], c[0], d[0], e[0], f[0], h[0] = 1, 1, 1, 1, 1, 1, 1
			p.y = 1
		}
		//cape:section
		{
			a = [3]int{4, 5, 6}
			a[1] = 2
			copy(b[:], src[:3])
			b[1] = 2
			for k := range c {
				c[k] = k
			}
			c[1] = 2
			d[0], d[1], d[2] = 3, 3, 3
			d[1] = 2
			if src[0] > 0 {
				e = [3]int{1, 1, 1}
			} else {
				e = [3]int{}
			}
			e[1] = 2
			fillAll(&f)
			f[1] = 2
			p = pt{}
			p.x = 2
			copy(h[:], src[1:4])
		}
	}
	//cape:parallel sections firstprivate(g) lastprivate(g)
	{
		//cape:section
		{
			fmt.Println("no write of g")
		}
		//cape:section
		{
			g[1] = 2
		}
	}
	fmt.Println(a, b, c, d, e, f, g, h, p)
	scratch()
}

// Copies that each section assigns before it reads them.
func scratch() {
	out := make([]int, 6)
	xs := []int{3, 4}
	var tmp [2]int
	var buf [4]int
	var k, x int
	z := 5
	//cape:parallel sections private(tmp, buf, k, x) firstprivate(z)
	{
		//cape:section
		{
			tmp[0], tmp[1] = 1, 2
			out[0] = tmp[0] + tmp[1] + z
			for k = 0; k < 2; k++ {
				out[1] += k
			}
		}
		//cape:section
		{
			for j := 0; j < 4; j++ {
				buf[j] = j // filled by a loop
			}
			out[2] = buf[3]
			for _, x = range xs {
				out[3] += x
			}
			x = 7
			if x > 3 {
				out[4] = x + z
			}
		}
	}
	fmt.Println(out)
}
