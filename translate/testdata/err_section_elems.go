package main

import "fmt"

// Sections writing an element at a constant index that another section
// uses, or writing through a pointer that stands for a variable another
// section uses, depend on each other. Sections writing different constant
// elements, or halves through loops, do not (as far as the translator
// can tell).

type pair struct {
	arr [4]int
	n   int
}

func main() {
	var a [4]int
	var s pair
	sl := make([]int, 8)
	res := make([]int, 2)
	var x int
	q := &x
	var r1 int
	var r2 int
	var r3 int
	var r4 int
	//cape:parallel sections
	{
		//cape:section
		{
			a[1] = 5     // want "a.1. is written in section 0"
			s.arr[2] = 6 // want "s.arr.2. is written in section 0"
			sl[3] = 7    // want "sl.3. is written in section 0"
			*q = 9       // want "x is written in section 0"
			res[0] = 1
			for i := 0; i < 4; i++ {
				sl[4+i] = i
			}
		}
		//cape:section
		{
			r1 = a[1] + 1
			r2 = s.arr[2] + 1
			r3 = sl[3] + 1
			r4 = x + 1
			res[1] = 2
		}
	}
	fmt.Println(a, s, sl, res, r1, r2, r3, r4)
	aliases()
	heldIndices()
}

func aliases() {
	var a [4]int
	var s pair
	var t pair
	p := &a[1]
	q := &s
	q2 := q
	pt := &t
	var r1 int
	var r2 int
	var r3 int
	//cape:parallel sections
	{
		//cape:section
		{
			*p = 5        // want "a is written in section 0"
			q2.n = 6      // want "s.n is written in section 0"
			pt.arr[0] = 1 // different fields of t: independent
		}
		//cape:section
		{
			r1 = a[1] + 1
			r2 = s.n + 1
			r3 = t.n + 1
		}
	}
	fmt.Println(a, s, t, r1, r2, r3)
}

// Indices held in variables defined once as constants.
func heldIndices() {
	a := make([]int, 4)
	k, m := 1, 2
	j := 3
	j++
	var r1 int
	var r2 int
	var r3 int
	//cape:parallel sections
	{
		//cape:section
		{
			a[k] = 5 // want "a.1. is written in section 0"
			a[m] = 6
		}
		//cape:section
		{
			r1 = a[1] + 1
			r2 = a[3] + a[0]
			r3 = j
		}
	}
	fmt.Println(a, r1, r2, r3)
}
