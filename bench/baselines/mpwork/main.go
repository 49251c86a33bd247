package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/cape-go/cape/bench/baselines/mpnet"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "mpwork: %v\n", err)
		os.Exit(1)
	}
}

// job is one rank's run of a workload.
type job struct {
	l        *mpnet.Links
	n, iters int
	c        mpnet.Counter
	compute  time.Duration
	start    time.Time // set by the workload once its data are filled
}

// timed adds the time f takes to the job's compute time.
func (j *job) timed(f func()) {
	t := time.Now()
	f()
	j.compute += time.Since(t)
}

// workloads maps -workload to the function that runs it and returns the
// root's line (the other ranks return "").
var workloads = map[string]func(*job) (string, error){
	"heat3d": heat3d,
	"cg":     cg,
	"power":  power,
}

func run() error {
	name := flag.String("workload", "", "heat3d, cg or power")
	n := flag.Int("n", 64, "problem size, as the example's -n")
	iters := flag.Int("iters", 10, "iterations, as the example's -iters")
	rank := flag.Int("rank", 0, "this process's rank; 0 is the root")
	size := flag.Int("size", 1, "number of ranks")
	addr := flag.String("addr", "127.0.0.1:0", "host:port rank 0 listens on and the others dial")
	flag.Parse()
	work := workloads[*name]
	if work == nil {
		return fmt.Errorf("-workload %q: want heat3d, cg or power", *name)
	}
	if *iters < 0 || *n < 1 {
		return fmt.Errorf("bad flags: -n %d -iters %d", *n, *iters)
	}
	l, err := mpnet.Connect(*addr, *rank, *size)
	if err != nil {
		return err
	}
	defer l.Close()
	j := &job{l: l, n: *n, iters: *iters}
	line, err := work(j)
	if err != nil {
		return fmt.Errorf("%s: %w", *name, err)
	}
	elapsed := time.Since(j.start)
	if *rank == 0 {
		fmt.Println(line)
		fmt.Fprintf(os.Stderr, "%s: iterations %.6fs on %d rank(s)\n", *name, elapsed.Seconds(), *size)
	}
	per := func(b int64) int64 { return b / int64(max(*iters, 1)) }
	fmt.Fprintf(os.Stderr, "mpwork: rank %d: compute %.6fs, communication %.6fs; per iteration sent %d, received %d bytes\n",
		*rank, j.compute.Seconds(), (elapsed - j.compute).Seconds(), per(j.c.Sent), per(j.c.Recv))
	return l.Finish()
}
