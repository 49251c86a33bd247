// Command recovered recovers a panic that an iteration of a parallel
// region raises (-where fn: in the function that holds the region; main:
// in main, which holds it), then prints and ends with status 0 under go
// run. Under cape run the region was left part-way, and the job must stop
// with an error naming it, not print another answer.
package main

import (
	"flag"
	"fmt"
)

func step(a []int, bad int) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("recovered: %v", p)
		}
	}()
	//cape:parallel for
	for i := 0; i < len(a); i++ {
		if i == bad {
			panic("bad element")
		}
		a[i]++
	}
	return nil
}

func main() {
	where := flag.String("where", "fn", "fn or main")
	flag.Parse()
	a := make([]int, 1000)
	fmt.Println("first:", step(a, -1))
	if *where == "fn" {
		fmt.Println("second:", step(a, 900))
		fmt.Println("sum", a[0]+a[999])
		return
	}
	defer func() {
		if p := recover(); p != nil {
			fmt.Println("recovered in main:", p, a[0])
		}
	}()
	//cape:parallel for
	for i := 0; i < len(a); i++ {
		a[i] += 10 / (i - 700)
	}
}
