package main

import (
	"fmt"
	"sync"
	"time"
)

func main() {
	var wg sync.WaitGroup
	res := make([]int64, 100)
	wg.Add(1)
	go func() {
		defer time.Sleep(100 * time.Millisecond) // runs after wg.Done: main goes on meanwhile
		defer wg.Done()
		//cape:parallel for
		for i := 0; i < 100; i++ {
			res[i] += int64(i)
		}
	}()
	wg.Wait()
	fmt.Println("res", res[99])
	//cape:parallel for schedule(static,2)
	for i := 0; i < 6; i++ {
		res[i] = int64(i) * int64(len(res))
		time.Sleep(30 * time.Millisecond)
	}
	fmt.Println(res[:6])
}
