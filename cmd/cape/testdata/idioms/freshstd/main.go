// Command freshstd uses, in each iteration, memory the standard library
// makes for it: math/big numbers (new and NewInt, passed to each other's
// methods), a container/list walked element by element, and a mutex made
// with &sync.Mutex{} guarding goroutines of the iteration.
package main

import (
	"container/list"
	"fmt"
	"math/big"
	"sync"
)

func main() {
	const n = 60
	digits := make([]int, n)
	lens := make([]int, n)
	counts := make([]int, n)
	//cape:parallel for schedule(dynamic, 4)
	for i := 0; i < n; i++ {
		f := big.NewInt(1)
		for k := 2; k <= i+2; k++ {
			f.Mul(f, big.NewInt(int64(k)))
		}
		r := new(big.Int)
		r.Mod(f, big.NewInt(1000003))
		digits[i] = len(f.String()) + int(r.Int64()%10)

		l := list.New()
		for k := 0; k < i%7+1; k++ {
			l.PushBack(k * i)
		}
		s := 0
		for e := l.Front(); e != nil; e = e.Next() {
			s += e.Value.(int)
		}
		lens[i] = s

		mu := &sync.Mutex{}
		c := 0
		var wg sync.WaitGroup
		for g := 0; g < 3; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				mu.Lock()
				c += g + 1
				mu.Unlock()
			}()
		}
		wg.Wait()
		counts[i] = c
	}
	fmt.Println(digits, lens, counts)
}
