// Command lastskip has lastprivate variables (a number, a string, a struct
// and an array) that iterations skipping to the next one with continue
// leave unassigned, so the last iteration does not assign them; a private
// variable assigned in every clause of a switch; a guarded minimum of a
// function's value; a string both firstprivate and lastprivate; and a
// generic function's region called with its type argument given.
package main

import "fmt"

type best struct {
	score float64
	at    int
}

func cost(i int) int { return (i*7919 + 13) % 1009 }

func scale[T ~int | ~float64](a []T, k T) {
	//cape:parallel for
	for i := 0; i < len(a); i++ {
		a[i] = T(i) * k
	}
}

func main() {
	names := []string{"ant", "bee", "cat", "dog", "eel", "fox", "gnu", "hen", "ibis"}
	n := 90
	x, tag, b := -1, "none", best{-1, -1}
	var arr [3]int
	//cape:parallel for lastprivate(x, tag, b, arr)
	for i := 0; i < n; i++ {
		nm := names[i%len(names)]
		if len(nm) > 3 || i >= 55 {
			continue
		}
		x = i
		tag = fmt.Sprintf("%s-%d", nm, i)
		b = best{float64(i) / 2, i}
		arr = [3]int{i, 2 * i, 3 * i}
	}
	out := make([]float64, n)
	var w float64
	low := 1 << 30
	//cape:parallel for private(w) reduction(min:low)
	for i := 0; i < n; i++ {
		switch i % 3 {
		case 0:
			w = 1
		case 1:
			w = 2.5
		default:
			w = -1
		}
		out[i] = w * float64(i)
		if cost(i) < low {
			low = cost(i)
		}
	}
	sum := 0.0
	for _, v := range out {
		sum += v
	}
	label := "start"
	//cape:parallel for firstprivate(label) lastprivate(label)
	for i := 0; i < n; i++ {
		if i%11 == 4 && i < 60 {
			label = fmt.Sprint("s", i)
		}
	}
	scale[float64](out, 0.5)
	fmt.Println(x, tag, b, arr, sum, low, label, out[n-1])
}
