package bench

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runTiny runs the harness end to end on n=64 and checks what it writes.
func runTiny(t *testing.T, cfg Config) []Sample {
	t.Helper()
	log, ctx := tinySetup(t, &cfg, 2*time.Minute)
	cfg.Sizes, cfg.Nodes, cfg.Reps = []int{64}, []int{1, 2}, 1
	samples, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("Run: %v\nlog: %s", err, log.String())
	}
	if err := Report(cfg.Out, samples, 8); err != nil {
		t.Fatal(err)
	}
	checkWritten(t, cfg.Out, append([]string{"results.csv", "results.md", "machine.md"}, Figures...))
	back := readBack(t, ReadCSV, cfg.Out, len(samples), "Run")
	seen := map[Mode]bool{}
	for _, s := range back {
		seen[s.Mode] = true
		if s.Checksum != back[0].Checksum {
			t.Errorf("%s×%d printed checksum %s, %s printed %s", s.Mode, s.Nodes, s.Checksum, back[0].Mode, back[0].Checksum)
		}
		if s.Seconds < 0 || s.Wall <= 0 {
			t.Errorf("%s×%d: times %g, %g", s.Mode, s.Nodes, s.Seconds, s.Wall)
		}
	}
	checkRan(t, cfg.Modes, seen, log.String())
	checkMarkdown(t, cfg.Out, []string{"Table I", "Fig. 4", "Fig. 5", "Fig. 6", "incremental / mpi-go"})
	svg, _ := os.ReadFile(filepath.Join(cfg.Out, Figures[0]))
	if !strings.HasPrefix(string(svg), "<svg") || !strings.Contains(string(svg), "incremental") {
		t.Errorf("%s is not the expected SVG", Figures[0])
	}
	return back
}

func TestQuickEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs every variant")
	}
	modes := []Mode{Seq, Goroutines, Complete, Incremental, MPIGo, MPIGoGather}
	needTools(t, "the C references", "gcc", "mpicc", "mpirun")
	modes = append(modes, OMPC, MPIC)
	runTiny(t, Config{Modes: modes})
}

func TestEmulatedCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs variants")
	}
	needEmulation(t)
	samples := runTiny(t, Config{Modes: []Mode{Seq, Incremental, MPIGo}, Emulate: true, NodeCPUs: 0.5, Bandwidth: "1gbit"})
	for _, s := range samples {
		if !s.Emulated || s.NodeCPUs != 0.5 {
			t.Errorf("%s×%d not emulated: %+v", s.Mode, s.Nodes, s)
		}
	}
}

func TestParseOutput(t *testing.T) {
	s := Sample{Size: 512}
	stderr := "cape: monitor: using uffd\n" +
		"cape: master: region matmul.go:product #1: compute 1.582436s, create 60.194ms (256 pages, 591623 bytes), exchange 66.768ms (sent 38772, received 38701 bytes)\n" +
		"matmul: parallel part 1.769s\n" +
		"[node 1] cape: node 1: region matmul.go:product #1: compute 1.6s, create 72.731ms (256 pages, 592200 bytes), exchange 184.203µs (sent 38701, received 38772 bytes)\n"
	if err := parseOutput(&s, "matmul n=512 checksum=4470edc3d257c745\n", stderr); err != nil {
		t.Fatal(err)
	}
	if s.Checksum != "4470edc3d257c745" || s.Seconds != 1.769 || s.Sent != 38772 || s.Received != 38701 ||
		s.DeltaBytes != 591623 || s.MaxCompute != 1.6 || s.Create < 0.06 || s.Exchange < 0.066 {
		t.Fatalf("parsed %+v", s)
	}
	if err := parseOutput(&Sample{Size: 256}, "matmul n=512 checksum=4470edc3d257c745\n", stderr); err == nil {
		t.Fatal("a checksum for another size was accepted")
	}
	if err := parseOutput(&Sample{Size: 512}, "", stderr); err == nil {
		t.Fatal("missing checksum accepted")
	}
	// The split exchange of --stats.
	s = Sample{Size: 512}
	stderr = "cape: master: region main.go:38:3 #1: compute 1.5s, create 60ms (256 pages, 591623 bytes), exchange 300ms = wait 200ms + merge/inject 70ms + send 30ms (sent 38772, received 38701 bytes)\n" +
		"matmul: parallel part 1.9s\n" +
		"[node 1] cape: node 1: region main.go:38:3 #1: start 2ms, compute 1.7s, create 72ms (256 pages, 592200 bytes), exchange 90ms = wait 80ms + merge/inject 5ms + send 5ms (sent 38701, received 38772 bytes)\n"
	if err := parseOutput(&s, "matmul n=512 checksum=4470edc3d257c745\n", stderr); err != nil {
		t.Fatal(err)
	}
	if s.Compute != 1.5 || s.MaxCompute != 1.7 || s.Exchange != 0.3 || s.Wait != 0.2 || s.Merge != 0.07 || s.Send != 0.03 ||
		s.Sent != 38772 || s.Received != 38701 || s.DeltaBytes != 591623 {
		t.Fatalf("parsed %+v", s)
	}
	s = Sample{Size: 512}
	if err := parseOutput(&s, "matmul n=512 checksum=4470edc3d257c745\n", "matmul: parallel part 2.5s on 2 rank(s)\nmpigo: compute 2.000000s, communication 0.500000s\n"); err != nil {
		t.Fatal(err)
	}
	if s.Compute != 2 || s.Comm != 0.5 {
		t.Fatalf("parsed mpigo %+v", s)
	}
}

func TestChecksumErrorMessage(t *testing.T) {
	var err error = &ChecksumError{Size: 64, Want: "a", Got: "b", First: "n=64 seq", Bad: "n=64 mpi-c×2"}
	var ce *ChecksumError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "mpi-c×2 printed b") {
		t.Fatalf("%v", err)
	}
}

func TestRotateVisitsEveryOrder(t *testing.T) {
	cells := [][]cell{{{1, 1, Seq}, {1, 1, Goroutines}}, {{1, 2, Incremental}, {1, 2, MPIGo}}}
	first := map[Mode]bool{}
	for r := 0; r < 3; r++ {
		rc := rotate(cells, r)
		if len(rc) != 4 {
			t.Fatalf("rotate lost cells: %v", rc)
		}
		first[rc[0].mode] = true
	}
	if len(first) < 2 {
		t.Fatalf("the same variant always runs first")
	}
}

func TestLSQ(t *testing.T) {
	b, d, ok := lsq([]float64{1, 2, 3}, []float64{5, 7, 9})
	if !ok || b < 1.999 || b > 2.001 || d < 2.999 || d > 3.001 {
		t.Fatalf("lsq = %g, %g, %t", b, d, ok)
	}
	if _, _, ok := lsq([]float64{1, 1}, []float64{1, 2}); ok {
		t.Fatal("constant x fitted")
	}
}

func TestParseModes(t *testing.T) {
	ms, err := ParseModes("seq, incremental,seq")
	if err != nil || len(ms) != 2 {
		t.Fatalf("%v %v", ms, err)
	}
	if _, err := ParseModes("seq,bogus"); err == nil {
		t.Fatal("bogus mode accepted")
	}
}
