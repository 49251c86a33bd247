package bench

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
)

// runRanks runs bin as nodes ranks of a hand-written message-passing
// program, rank r with the arguments args(r, addr), addr being where rank 0
// listens (its bridge address in the emulated cluster's namespaces, else a
// free loopback port). It waits for every rank, kills them all on the first
// failure or when ctx ends, and writes rank 0's stdout to stdout and every
// rank's stderr, in rank order, to stderr. It returns every rank's stdout,
// in rank order, for callers that check the ranks agree.
func runRanks(ctx context.Context, cl *cluster, emulated bool, nodes int, bin string, args func(rank int, addr string) []string, stdout, stderr *bytes.Buffer) ([]string, error) {
	addr := ""
	if emulated && cl.netns {
		addr = net.JoinHostPort(cl.masterIP(), strconv.Itoa(cl.port()))
	} else {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	}
	type result struct {
		rank int
		err  error
	}
	done := make(chan result, nodes)
	var cmds []*exec.Cmd
	outs := make([]bytes.Buffer, nodes)
	errs := make([]bytes.Buffer, nodes)
	for r := 0; r < nodes; r++ {
		argv := append(append(cl.wrap(emulated, r, true), bin), args(r, addr)...)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(cleanEnv(), "BENCH_RANK="+strconv.Itoa(r))
		cmd.Stdout, cmd.Stderr = &outs[r], &errs[r]
		setGroup(cmd)
		if err := cmd.Start(); err != nil {
			killAll(cmds)
			for range cmds {
				<-done
			}
			return nil, fmt.Errorf("start rank %d: %w", r, err)
		}
		cmds = append(cmds, cmd)
		go func() { done <- result{r, cmd.Wait()} }()
	}
	var first error
	for k := 0; k < nodes; k++ {
		select {
		case res := <-done:
			if res.err != nil && first == nil {
				first = fmt.Errorf("rank %d: %w", res.rank, res.err)
				killAll(cmds)
			}
		case <-ctx.Done():
			killAll(cmds)
			if first == nil {
				first = ctx.Err()
			}
			k-- // still wait for the process to be reaped
			ctx = context.Background()
		}
	}
	stdout.Write(outs[0].Bytes())
	for r := range errs {
		stderr.Write(errs[r].Bytes())
	}
	rankOuts := make([]string, nodes)
	for r := range outs {
		rankOuts[r] = outs[r].String()
	}
	return rankOuts, first
}

// runMPIRun runs the MPI program bin with args on nodes ranks through
// mpirun, each rank wrapped for its node of the emulated cluster.
func runMPIRun(ctx context.Context, mpirun string, cl *cluster, emulated bool, nodes int, bin string, args []string, stdout, stderr *bytes.Buffer) error {
	mpiArgs := []string{"--bind-to", "none", "--oversubscribe", "-np", strconv.Itoa(nodes)}
	if os.Geteuid() == 0 {
		mpiArgs = append([]string{"--allow-run-as-root"}, mpiArgs...)
	}
	prog := append(cl.wrap(emulated, -1, false), bin)
	return runProc(ctx, nil, mpirun, append(append(mpiArgs, prog...), args...), nil, stdout, stderr)
}
