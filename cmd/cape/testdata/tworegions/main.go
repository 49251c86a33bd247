// Command tworegions is a test program: every node reports its pid on
// stderr, then the job runs two regions over an arena array and the master
// prints a checksum.
package main

import (
	"fmt"
	"os"

	"github.com/cape-go/cape/cape"
)

func main() {
	cape.Must(cape.Init())
	defer cape.Finalize()
	fmt.Fprintf(os.Stderr, "pid %d\n", os.Getpid())
	x := cape.Make[int64](1 << 16)
	for pass := int64(1); pass <= 2; pass++ {
		r := cape.Begin(fmt.Sprintf("pass %d", pass))
		cape.Must(r.Start())
		lo, hi := r.Static(len(x))
		for i := lo; i < hi; i++ {
			x[i] = x[i]*3 + int64(i)*pass
		}
		d, err := r.Create()
		cape.Must(err)
		cape.Must(r.Stop())
		cape.Must(r.Exchange(d))
	}
	var sum int64
	for _, v := range x {
		sum = sum*31 + v
	}
	fmt.Printf("sum %d\n", sum)
}
