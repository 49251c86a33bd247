// Command endings runs a loop of parallel regions, prints, and ends as
// -how says: "exit" calls os.Exit(3), "panic" panics, "goexit" calls
// runtime.Goexit (go run then ends with a fatal error, status 2),
// "recover" panics and recovers in a deferred call that exits with 7,
// "fatal" calls log.Fatalf (status 1); "exitin" and "fatalin" call os.Exit(3)
// and log.Fatalf in one iteration of the last region, "exitprint" calls
// os.Exit(3) there after iterations of the region printed, "exitzero" the
// same with os.Exit(0), "panicin" panics there.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
)

func main() {
	how := flag.String("how", "exit", "exit, panic, goexit, recover, fatal, exitin, fatalin, exitprint, exitzero or panicin")
	flag.Parse()
	a := make([]int, 5000)
	for k := 0; k < 4; k++ {
		//cape:parallel for
		for i := range a {
			a[i] += i * (k + 1)
			if k == 3 && (*how == "exitprint" || *how == "exitzero") && i%1000 == 0 {
				fmt.Println("iteration", i)
			}
			if k == 3 && i == 4000 {
				switch *how {
				case "exitprint":
					os.Exit(3)
				case "exitzero":
					os.Exit(0)
				case "exitin":
					os.Exit(3)
				case "fatalin":
					log.Fatalf("iteration %d", i)
				case "panicin":
					panic(fmt.Sprint("iteration ", i))
				}
			}
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
	case "fatal":
		log.Fatalf("the sum is %d", s)
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
