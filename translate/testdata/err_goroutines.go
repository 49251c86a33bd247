package main

import (
	"fmt"
	"sync"
)

// Regions run one at a time and in the same order on every node: a
// goroutine may run them only where no other region can run meanwhile, or
// where its starter waits for it before anything else.

func fill(a []int, k int) {
	//cape:parallel for
	for i := range a {
		a[i] = i * k
	}
}

func main() {
	a := make([]int, 64)
	b := make([]int, 64)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // want "this goroutine may run a parallel region .err_goroutines.go:26. while another region runs"
		defer wg.Done()
		fill(a, 2)
	}()
	go func() { // joined at once, but the first one still runs
		defer wg.Done()
		fill(b, 3)
	}()
	wg.Wait()
	for k := 0; k < 2; k++ {
		wg.Add(1)
		go func() { // waited for before anything else: as a call
			defer wg.Done()
			fill(a, k)
		}()
		wg.Wait()
	}
	for k := 0; k < 2; k++ {
		wg.Add(1)
		go func() { // the last statement signals: as a call
			fill(b, k)
			wg.Done()
		}()
		wg.Wait()
	}
	for k := 0; k < 2; k++ {
		wg.Add(1)
		go func() { // want "this goroutine may run a parallel region .err_goroutines.go:53. while another region runs"
			wg.Done() // before its regions: the wait may end while they run
			fill(b, k)
		}()
		wg.Wait()
	}
	for k := 0; k < 2; k++ {
		wg.Add(1)
		go func() { // want "this goroutine may run a parallel region .err_goroutines.go:61. while another region runs"
			defer wg.Done()
			fill(b, k)
		}()
		wg.Done() // ends the wait before the goroutine does
		wg.Wait()
	}
	for k := 0; k < 2; k++ {
		wg.Add(1)
		go func() { // want "this goroutine may run a parallel region .err_goroutines.go:69. while another region runs"
			defer fill(b, k) // runs after wg.Done()
			defer wg.Done()
		}()
		wg.Wait()
	}
	//cape:parallel for
	for i := range b {
		b[i] += a[i]
	}
	fmt.Println(a[63], b[63])
}
