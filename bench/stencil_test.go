package bench

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runTinyStencil runs the stencil harness end to end on a 40×40 grid, 5
// iterations, 1 and 2 nodes, and checks what it writes.
func runTinyStencil(t *testing.T, cfg StencilConfig) []StencilSample {
	t.Helper()
	log, ctx := tinySetup(t, &cfg.Config, 3*time.Minute)
	cfg.Sizes, cfg.Nodes, cfg.Reps, cfg.Iters = []int{40}, []int{1, 2}, 1, 5
	samples, err := RunStencil(ctx, cfg)
	if err != nil {
		t.Fatalf("RunStencil: %v\nlog: %s", err, log.String())
	}
	if err := ReportDir(cfg.Out, 0); err != nil {
		t.Fatal(err)
	}
	checkWritten(t, cfg.Out, append([]string{"results.csv", "results.md", "machine.md"}, Stencil.Figures()...))
	back := readBack(t, ReadStencilCSV, cfg.Out, len(samples), "RunStencil")
	var seq *StencilSample
	for i, s := range back {
		if s.Mode == Seq {
			seq = &back[i]
		}
	}
	if seq == nil || !strings.HasPrefix(seq.Line, "n=40 iters=5 sum=") || !strings.Contains(seq.Line, " hash=") {
		t.Fatalf("no sequential sample with the example's line: %+v", seq)
	}
	seen := map[Mode]bool{}
	for _, s := range back {
		seen[s.Mode] = true
		if s.Line != seq.Line {
			t.Errorf("%s×%d printed %q, seq printed %q", s.Mode, s.Nodes, s.Line, seq.Line)
		}
		if s.Seconds < 0 || s.Wall <= 0 {
			t.Errorf("%s×%d: times %g, %g", s.Mode, s.Nodes, s.Seconds, s.Wall)
		}
	}
	checkRan(t, cfg.Modes, seen, log.String())
	checkMarkdown(t, cfg.Out, []string{"Time vs nodes, n = 40", "incremental / halo-go", "Bytes moved per iteration", "Where the time goes"})
	return back
}

// checkBytes checks the per-iteration byte counts of the 2-node samples: a
// halo baseline's slave receives exactly one row of its neighbour and sends
// one row and the reduction; CAPE's nodes report what --stats counted.
func checkBytes(t *testing.T, samples []StencilSample) {
	t.Helper()
	for _, s := range samples {
		if s.Nodes != 2 {
			continue
		}
		switch s.Mode {
		case HaloGo, HaloC:
			if s.OtherRecv != 40*8 || s.OtherSent != 40*8+8 || s.MasterRecv != 40*8+8 {
				t.Errorf("%s×2 bytes per iteration: %+v", s.Mode, s)
			}
		case Incremental:
			if s.MasterSent <= 0 || s.OtherRecv <= 0 || s.Compute <= 0 {
				t.Errorf("incremental×2 has no --stats figures: %+v", s)
			}
		}
	}
}

func TestStencilQuickEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs every variant")
	}
	modes := []Mode{Seq, Goroutines, Incremental, Complete, HaloGo}
	needTools(t, "halo-c", "mpicc", "mpirun")
	modes = append(modes, HaloC)
	checkBytes(t, runTinyStencil(t, StencilConfig{Config: Config{Modes: modes}}))
}

func TestStencilEmulated(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs variants")
	}
	needEmulation(t)
	samples := runTinyStencil(t, StencilConfig{Config: Config{Modes: []Mode{Seq, Incremental, HaloGo}, Emulate: true, NodeCPUs: 0.5}})
	for _, s := range samples {
		if !s.Emulated || s.NodeCPUs != 0.5 {
			t.Errorf("%s×%d not emulated: %+v", s.Mode, s.Nodes, s)
		}
	}
	checkBytes(t, samples)
}

func TestRegionsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs cape jobs")
	}
	cfg := RegionsConfig{Config: Config{Nodes: []int{1, 2}, Reps: 1}, K: 20}
	log, ctx := tinySetup(t, &cfg.Config, 2*time.Minute)
	out := cfg.Out
	samples, err := RunRegions(ctx, cfg)
	if err != nil {
		t.Fatalf("RunRegions: %v\nlog: %s", err, log.String())
	}
	if len(samples) != 2 {
		t.Fatalf("%d samples, want 2", len(samples))
	}
	for _, s := range samples {
		// a[i] = r*64 + i after the last region r = 19.
		if s.Line != "regions k=20 sum="+itoa(19*64*64+63*64/2) || s.PerRegion <= 0 {
			t.Errorf("sample %+v", s)
		}
	}
	if err := ReportDir(out, 0); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRegionsCSV(filepath.Join(out, "results.csv"))
	if err != nil || len(back) != 2 {
		t.Fatalf("ReadRegionsCSV: %d samples, %v", len(back), err)
	}
	md, _ := os.ReadFile(filepath.Join(out, "results.md"))
	if !strings.Contains(string(md), "| 2 | ") || !strings.Contains(string(md), "µs per region") {
		t.Errorf("results.md:\n%s", md)
	}
}

func TestParseStencil(t *testing.T) {
	line := "n=64 iters=3 sum=145.958292007 weighted=297.291395187 last-diff=2.403e-02 hash=61dcd45bce3b6325"
	stderr := "cape: monitor: using uffd\n" +
		"cape: master: region main.go:35:3 #1: compute 1ms, create 2ms (4 pages, 100 bytes), exchange 10ms = wait 5ms + merge/inject 3ms + send 2ms (sent 1000, received 10 bytes)\n" +
		"[node 1] cape: node 1: region main.go:35:3 #1: start 1ms, compute 3ms, create 1ms (2 pages, 50 bytes), exchange 4ms = wait 4ms + merge/inject 0s + send 0s (sent 10, received 1000 bytes)\n" +
		"cape: master: region main.go:35:3 #2: compute 1ms, create 2ms (4 pages, 100 bytes), exchange 10ms = wait 5ms + merge/inject 3ms + send 2ms (sent 3000, received 30 bytes)\n" +
		"[node 1] cape: node 1: region main.go:35:3 #2: compute 3ms, create 1ms (2 pages, 50 bytes), exchange 4ms = wait 4ms + merge/inject 0s + send 0s (sent 30, received 3000 bytes)\n" +
		"cape: master: region main.go:35:3 #3: compute 1ms, create 2ms (4 pages, 100 bytes), exchange 10ms = wait 5ms + merge/inject 3ms + send 2ms (sent 2000, received 20 bytes)\n" +
		"[node 1] cape: node 1: region main.go:35:3 #3: compute 3ms, create 1ms (2 pages, 50 bytes), exchange 4ms = wait 4ms + merge/inject 0s + send 0s (sent 20, received 2000 bytes)\n" +
		"stencil: iterations 0.250000s\n"
	s := StencilSample{Size: 64, Iters: 3, Nodes: 2, Mode: Incremental}
	if err := parseStencil(&s, line+"\n", stderr); err != nil {
		t.Fatal(err)
	}
	near := func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
	if s.Line != line || s.Seconds != 0.25 || !near(s.Compute, 0.003) || !near(s.MaxCompute, 0.009) || !near(s.Create, 0.006) ||
		!near(s.Wait, 0.015) || !near(s.Merge, 0.009) || !near(s.Send, 0.006) || !near(s.Comm, 0.036) || s.Pages != 4 ||
		s.MasterSent != 2000 || s.MasterRecv != 20 || s.OtherSent != 20 || s.OtherRecv != 2000 {
		t.Fatalf("parsed %+v", s)
	}
	// A node with a missing region is an error, as is another size.
	lines := strings.Split(stderr, "\n")
	short := strings.Join(append(lines[:1:1], lines[2:]...), "\n")
	if err := parseStencil(&StencilSample{Size: 64, Iters: 3, Nodes: 2, Mode: Incremental}, line, short); err == nil {
		t.Error("a master with 2 of 3 regions was accepted")
	}
	if err := parseStencil(&StencilSample{Size: 32, Iters: 3, Mode: Seq}, line, stderr); err == nil {
		t.Error("a line for another size was accepted")
	}
	halo := "stencil: iterations 0.5s on 2 rank(s)\n" +
		"halogo: rank 1: compute 0.3s, communication 0.2s; per iteration sent 520, received 512 bytes\n" +
		"halogo: rank 0: compute 0.4s, communication 0.1s; per iteration sent 512, received 520 bytes\n"
	s = StencilSample{Size: 64, Iters: 3, Nodes: 2, Mode: HaloGo}
	if err := parseStencil(&s, line, halo); err != nil {
		t.Fatal(err)
	}
	if s.Seconds != 0.5 || s.Compute != 0.4 || s.MaxCompute != 0.4 || s.Comm != 0.1 || s.MasterRecv != 520 || s.OtherSent != 520 || s.OtherRecv != 512 {
		t.Fatalf("parsed halo %+v", s)
	}
	if err := parseStencil(&StencilSample{Size: 64, Iters: 3, Nodes: 3, Mode: HaloGo}, line, halo); err == nil {
		t.Error("statistics of 2 ranks accepted for 3")
	}
}

func TestSameLineFailsOnOneBit(t *testing.T) {
	first := map[int]StencilSample{}
	a := StencilSample{Size: 64, Nodes: 1, Mode: Seq, Line: "n=64 iters=3 sum=1 weighted=2 last-diff=0 hash=61dcd45bce3b6325"}
	b := StencilSample{Size: 64, Nodes: 2, Mode: HaloGo, Line: strings.Replace(a.Line, "6325", "6324", 1)}
	if err := sameLine(first, a); err != nil {
		t.Fatal(err)
	}
	if err := sameLine(first, a); err != nil {
		t.Fatal(err)
	}
	var ce *ChecksumError
	if err := sameLine(first, b); !errors.As(err, &ce) || !strings.Contains(err.Error(), "halo-go×2 printed") {
		t.Fatalf("mismatch not reported: %v", err)
	}
}
