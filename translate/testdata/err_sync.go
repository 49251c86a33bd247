package main

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
)

// Atomic updates and locks of memory the iterations share are refused:
// each node would update its own copy. Those of the iteration's own memory
// are not.

type counter struct {
	mu sync.Mutex
	n  int64
}

func (c *counter) inc() {
	c.mu.Lock() // want "c.mu.Lock in the parallel region \\(called from the parallel region at err_sync.go:[0-9]+\\) takes a lock that every node has a copy of"
	c.n++
	c.mu.Unlock()
}

// own counts with memory it makes itself.
func own(k int) int64 {
	var c atomic.Int64
	var mu sync.Mutex
	mu.Lock()
	c.Add(int64(k))
	mu.Unlock()
	return c.Load()
}

func main() {
	const n = 64
	var hits atomic.Int64
	var totals [2]int64
	c := &counter{}
	out := make([]int64, n)
	//cape:parallel for
	for i := 0; i < n; i++ {
		hits.Add(1)                      // want "hits.Add in the parallel region updates memory that every node has a copy of"
		atomic.AddInt64(&totals[0], 2)   // want "atomic.AddInt64 in the parallel region updates memory that every node has a copy of"
		_ = atomic.LoadInt64(&totals[1]) // a read
		c.inc()                          // want "c.inc\\(\\) updates c.n \\(at err_sync.go:[0-9]+\\) in every iteration of the parallel loop at the same place"
		var mine atomic.Int32
		mine.Store(int32(i))
		out[i] = own(i) + int64(mine.Load())
	}
	fmt.Println(hits.Load(), totals, c.n, out)
	onces()
	groups()
	environment()
	handed()
}

func done(wg *sync.WaitGroup, out []int, i int) {
	defer wg.Done() // want "wg.Done in the parallel region .called from the parallel region at err_sync.go:[0-9]+. uses a sync.WaitGroup handed to the function as wg"
	out[i] = i
}

func handed() {
	out := make([]int, 4)
	//cape:parallel for
	for i := 0; i < 4; i++ {
		var wg sync.WaitGroup
		wg.Add(1)
		go done(&wg, out, i)
		wg.Wait()
	}
	fmt.Println(out)
}

func groups() {
	var wg sync.WaitGroup
	out := make([]int, 4)
	//cape:parallel for
	for i := 0; i < 4; i++ {
		wg.Add(1) // want "wg.Add in the parallel region uses a sync.WaitGroup that every node has a copy of"
		go func() {
			defer wg.Done() // want "wg.Done in the parallel region uses a sync.WaitGroup"
			out[i] = i
		}()
		var mine sync.WaitGroup
		mine.Go(func() { out[i] += 1 })
		mine.Wait()
	}
	wg.Wait()
	fmt.Println(out)
}

func onces() {
	var once sync.Once
	out := make([]int, 4)
	//cape:parallel for
	for i := 0; i < 4; i++ {
		once.Do(func() { fmt.Println("set up") }) // want "once.Do in the parallel region uses a sync.Once that every node has a copy of"
		var mine sync.Once
		mine.Do(func() { out[i] = i })
	}
	fmt.Println(out)
}

func environment() {
	out := make([]int, 8)
	//cape:parallel for
	for i := 0; i < 8; i++ {
		if i == 7 {
			os.Setenv("LAST", "7") // want "os.Setenv in the parallel region changes the process's state"
		}
		out[i] = len(os.Getenv("HOME"))
	}
	fmt.Println(out, os.Getenv("LAST"))
}
