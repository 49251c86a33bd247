package main

import "fmt"

// Private copies in parallel sections: a node has one copy for all the
// sections it runs, zero at the start (its value from before the region
// for firstprivate), and the node of the last section hands its copy of
// a lastprivate variable back. go run runs the sections in order on one
// variable. A lastprivate array or struct that the last section writes in
// part without assigning it whole first, or that an earlier section
// writes in part, comes out as the last section's copy, where go run's
// keeps what the earlier sections and the code before left; a copy read
// before the section assigns it holds zero or what the node's earlier
// sections left.

type pt struct{ x, y int }

func (p *pt) setX(v int) { p.x = v }

func fill(x *int) { *x = 42 }

func main() {
	a := [3]int{7, 8, 9}
	//cape:parallel sections lastprivate(a)
	{
		//cape:section
		{
			a[0] = 1
		}
		//cape:section
		{
			a[1] = 2 // want "a is lastprivate in the parallel sections, but the last section \\(section 1\\) writes it here \\(a\\[1\\] = 2\\) without assigning it whole first: the node that ran the last section hands back its copy, in which what that section did not assign holds zero, or what that node's earlier sections left, where go run's one variable keeps what section 0 wrote \\(a\\[0\\] = 1 at err_section_last.go:28\\); assign it whole at the start of the last section \\(a = \\[3\\]int\\{\\}\\), or do not list it in lastprivate: sections may write different elements of a shared array"
		}
	}
	p := pt{7, 8}
	//cape:parallel sections lastprivate(p)
	{
		//cape:section
		{
			p.x = 1
		}
		//cape:section
		{
			p.y = 2 // want "p is lastprivate in the parallel sections, but the last section \\(section 1\\) writes it here \\(p.y = 2\\).*or do not list it in lastprivate: sections may write different fields of a shared struct"
		}
	}
	b := [3]int{7, 8, 9}
	//cape:parallel sections firstprivate(b) lastprivate(b)
	{
		//cape:section
		{
			b[0] = 1
		}
		//cape:section
		{
			b[1] = 2 // want "b is lastprivate in the parallel sections, but the last section \\(section 1\\) writes it here.*holds its value from before the region, or what that node's earlier sections left"
		}
	}
	c := [3]int{7, 8, 9}
	//cape:parallel sections lastprivate(c)
	{
		//cape:section
		{
			c[0] = 1 // want "c is lastprivate in the parallel sections, but section 0 writes it here \\(c\\[0\\] = 1\\), and the last section \\(section 2\\) does not assign it whole: .*where go run's one variable keeps what it wrote there"
		}
		//cape:section
		{
			fmt.Println("one")
		}
		//cape:section
		{
			fmt.Println("two")
		}
	}
	e := [3]int{7, 8, 9}
	//cape:parallel sections lastprivate(e)
	{
		//cape:section
		{
			e[0] = 1
		}
		//cape:section
		{
			if a[0] > 0 {
				e = [3]int{} // want "e is lastprivate in the parallel sections, but the last section \\(section 1\\) writes it here \\(e = \\[3\\]int\\{\\}\\) without assigning it whole first"
			}
		}
	}
	d := [3]int{7, 8, 9}
	//cape:parallel sections lastprivate(d)
	{
		//cape:section
		{
			fmt.Println("first")
		}
		//cape:section
		{
			d[1] = 2 // want "d is lastprivate in the parallel sections, but the last section \\(section 1\\) writes it here.*where go run's one variable keeps its value from before the region; assign it whole at the start of the last section \\(d = \\[3\\]int\\{\\}\\), or list it in firstprivate too"
		}
	}
	fmt.Println(a, p, b, c, d, e)
	throughCalls()
	readFirst()
}

// Writes other than an assignment: a method with a pointer receiver, &x
// handed to a function, copy into a part.
func throughCalls() {
	src := []int{4, 5}
	p := pt{7, 8}
	x := 7
	v := [3]int{7, 8, 9}
	w := [3]int{7, 8, 9}
	//cape:parallel sections lastprivate(p, x, v, w)
	{
		//cape:section
		{
			p.setX(1) // want "p is lastprivate in the parallel sections, but section 0 uses p.setX here before assigning it: the node's copy holds zero, or what the sections that node ran before left, where go run's one variable holds its value from before the region; assign it at the start of the section, or list it in firstprivate too"
			fill(&x)  // want "x is lastprivate in the parallel sections, but section 0 writes it here \\(fill\\(&x\\)\\), and the last section \\(section 1\\) does not assign it whole.*assign it whole at the start of the last section, or run the sections in order"
			v = [3]int{1, 2, 3}
			w = [3]int{1, 2, 3}
		}
		//cape:section
		{
			copy(v[:2], src) // want "v is lastprivate in the parallel sections, but section 1 uses it here before assigning it"
			w[0] = 5         // want "w is lastprivate in the parallel sections, but the last section \\(section 1\\) writes it here \\(w\\[0\\] = 5\\)"
			copy(w[:], src)  // src may be shorter than w: assigns a part
		}
	}
	fmt.Println(p, x, v, w)
}

// Copies read before the section assigns them.
func readFirst() {
	out := make([]int, 8)
	x, y, z, f, g := 5, 5, 5, 5, 5
	arr := [2]int{7, 8}
	var s pt
	//cape:parallel sections private(x, arr, s) lastprivate(y) firstprivate(z, f, g)
	{
		//cape:section
		{
			out[0] = x // want "x is private in the parallel sections, but section 0 uses it here before assigning it: the node's copy holds zero, or what the sections that node ran before left, where go run's one variable holds its value from before the region; assign it at the start of the section, or list it in firstprivate"
			y = 1
			z = 1
			out[4] = g // want "g is firstprivate in the parallel sections, but section 0 uses it here before assigning it: the node's copy holds its value from before the region, or what the sections that node ran before left, where go run's one variable holds its value from before the region; section 1 writes it too \\(at err_section_last.go:158\\), and a node that runs that section first starts this one from what it left; assign it at the start of this section, or read a copy made before the region \\(g0 := g\\)"
			if out[0] > 0 {
				arr = [2]int{1, 2}
				s = pt{}
			}
		}
		//cape:section
		{
			y = y + 1       // want "y is lastprivate in the parallel sections, but section 1 uses it here before assigning it: .*where go run's one variable holds what section 0 left there \\(it writes y at err_section_last.go:144\\); the sections depend on each other through it: assign it at the start of this section, or run them in order"
			out[1] = z      // want "z is firstprivate in the parallel sections, but section 1 uses it here before assigning it: the node's copy holds its value from before the region"
			out[2] = f      // f is never written: every copy holds its value
			out[3] = arr[1] // want "arr is private in the parallel sections, but section 1 uses it here before assigning it"
			g = 2
			s.x = 1
			out[5] = s.y // want "s is private in the parallel sections, but section 1 uses s.y here before assigning it"
		}
	}
	fmt.Println(out, y)
}
