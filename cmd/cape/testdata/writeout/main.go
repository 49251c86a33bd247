// Command writeout is a test program: like tworegions, then the master
// writes its result to the file named by -o after the last region, naively
// (no temporary file and rename), in many small writes ending with "end\n".
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/cape-go/cape/cape"
)

func main() {
	out := flag.String("o", "", "output file")
	flag.Parse()
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
	if !cape.Master() {
		return
	}
	f, err := os.Create(*out)
	cape.Must(err)
	w := bufio.NewWriterSize(f, 4096)
	for _, v := range x {
		fmt.Fprintf(w, "%d\n", v)
	}
	fmt.Fprintf(w, "end\n")
	cape.Must(w.Flush())
	cape.Must(f.Close())
}
