// Command stall is a test program: every node reports its pid, then enters a
// region in which the slaves sleep, so that a test can kill one of them
// mid-region.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/cape-go/cape/cape"
)

func main() {
	cape.Must(cape.Init())
	defer cape.Finalize()
	fmt.Fprintf(os.Stderr, "pid %d\n", os.Getpid())
	x := cape.Make[int64](4096)
	r := cape.Begin("stall")
	cape.Must(r.Start())
	lo, hi := r.Static(len(x))
	for i := lo; i < hi; i++ {
		x[i] = int64(i)
	}
	fmt.Fprintf(os.Stderr, "in region\n")
	if !cape.Master() {
		time.Sleep(time.Minute)
	}
	d, err := r.Create()
	cape.Must(err)
	cape.Must(r.Stop())
	cape.Must(r.Exchange(d))
	fmt.Println("done")
}
