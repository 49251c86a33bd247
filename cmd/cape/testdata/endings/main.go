// Command endings runs a loop of parallel regions, prints, and ends as
// -how says: "exit" calls os.Exit(3), "panic" panics, "goexit" calls
// runtime.Goexit (go run then ends with a fatal error, status 2),
// "recover" panics and recovers in a deferred call that exits with 7.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
)

func main() {
	how := flag.String("how", "exit", "exit, panic, goexit or recover")
	flag.Parse()
	a := make([]int, 5000)
	for k := 0; k < 4; k++ {
		//cape:parallel for
		for i := range a {
			a[i] += i * (k + 1)
		}
	}
	s := 0
	for _, x := range a {
		s += x
	}
	fmt.Println("sum", s)
	switch *how {
	case "exit":
		os.Exit(3)
	case "panic":
		panic(fmt.Sprint("the sum is ", s))
	case "goexit":
		defer fmt.Println("deferred before Goexit")
		runtime.Goexit()
	case "recover":
		defer func() {
			if r := recover(); r != nil {
				fmt.Println("recovered:", r)
				os.Exit(7)
			}
		}()
		panic("late")
	}
}
