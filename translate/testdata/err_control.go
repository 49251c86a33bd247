package main

import "fmt"

func f(a []float64) int {
	n := len(a)
	//cape:parallel for
	for i := 0; i < n; i++ {
		if a[i] < 0 {
			break // want "break leaves the parallel region"
		}
		if a[i] > 10 {
			return i // want "return leaves the parallel region"
		}
		defer fmt.Println(i) // want "defer in a parallel region"
		for j := 0; j < 3; j++ {
			if j == 1 {
				break
			}
			continue
		}
		func() {
			return
		}()
		a[i] = 1
	}
outer:
	for t := 0; t < 2; t++ {
		//cape:parallel sections
		{
			//cape:section
			{
				a[0] = 1
				continue // want "continue leaves the parallel region"
			}
			//cape:section
			{
				a[1] = 1
				break outer // want "break leaves the parallel region"
			}
			//cape:section
			{
				goto done // want "goto done leaves the parallel region"
			}
		}
	}
done:
	return 0
}

// search breaks out with its result: only the break is reported, not the
// assignments that go with it.
func search(a []float64) (int, bool) {
	first, found := -1, false
	//cape:parallel for
	for i := range a {
		if a[i] == 3 {
			first = i
			found = true
			break // want "break leaves the parallel region"
		}
	}
	return first, found
}

// again jumps back to the label of a parallel for, which labels each
// node's share of the iterations once translated.
func again(a []float64) {
	k := 0
	//cape:parallel for
loop:
	for i := range a {
		if a[i] > 100 {
			continue loop
		}
		a[i] += float64(k)
	}
	k++
	if k < 3 {
		goto loop // want "goto loop jumps to the label of the parallel for at err_control.go:71"
	}
}

func main() {
	a := make([]float64, 10)
	fmt.Println(f(a))
	fmt.Println(search(a))
	again(a)
}
