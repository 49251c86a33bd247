package bench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// capeRegions returns the --stats lines of k regions on the master and on
// node 1, each region sending and receiving the given bytes.
func capeRegions(k int, sent, recv int) string {
	var b strings.Builder
	for r := 1; r <= k; r++ {
		fmt.Fprintf(&b, "cape: master: region main.go:9:3 #%d: compute 1ms, create 1ms (2 pages, 10 bytes), exchange 2ms = wait 1ms + merge/inject 1ms + send 0s (sent %d, received %d bytes)\n", r, sent, recv)
		fmt.Fprintf(&b, "[node 1] cape: node 1: region main.go:9:3 #%d: compute 2ms, create 1ms (1 pages, 5 bytes), exchange 2ms = wait 2ms + merge/inject 0s + send 0s (sent %d, received %d bytes)\n", r, recv, sent)
	}
	return b.String()
}

func TestParseWorkloads(t *testing.T) {
	rss := "bench: peak rss 1000 kB\n[node 1] bench: peak rss 3000 kB\n"
	ranksRSS := "bench: rank 0: peak rss 500 kB\nbench: rank 1: peak rss 700 kB\nbench: rank 2: peak rss 600 kB\n"
	mp := "mpwork: rank 0: compute 0.1s, communication 0.2s; per iteration sent 16, received 24 bytes\n" +
		"mpwork: rank 1: compute 0.2s, communication 0.1s; per iteration sent 24, received 16 bytes\n"
	for _, tc := range []struct {
		name                 string
		s                    StencilSample
		stdout, stderr       string
		wantErr              string
		master, other        float64 // peak RSS, bytes
		masterSent, recvSent float64 // bytes per iteration: master sent, others received
	}{
		{name: "cg incremental, 3 regions per iteration",
			s:      StencilSample{Workload: "cg", Size: 16, Iters: 2, Nodes: 2, Mode: Incremental},
			stdout: "cg n=16 iters=2 rr=1.0e+00 hash=0123456789abcdef\n", stderr: capeRegions(6, 100, 10) + "cg: iterations 0.5s\n" + rss,
			master: 1000 * 1024, other: 3000 * 1024, masterSent: 300, recvSent: 300},
		{name: "cg may stop early (converged)",
			s: StencilSample{Workload: "cg", Size: 16, Iters: 2, Nodes: 2, Mode: Incremental},
			// 4 regions of 3 per iteration: 4/3 iterations ran, so 400
			// bytes are 300 per iteration (not 200 per iteration asked).
			stdout: "cg n=16 iters=2 rr=0.0e+00 hash=0123456789abcdef\n", stderr: capeRegions(4, 100, 10) + "cg: iterations 0.5s\n",
			masterSent: 300, recvSent: 300},
		{name: "cg with more regions than its iterations",
			s:      StencilSample{Workload: "cg", Size: 16, Iters: 2, Nodes: 2, Mode: Incremental},
			stdout: "cg n=16 iters=2 rr=0.0e+00 hash=0123456789abcdef\n", stderr: capeRegions(7, 100, 10) + "cg: iterations 0.5s\n",
			wantErr: "want 6 (3 per iteration)"},
		{name: "power must run 2 regions per iteration",
			s:      StencilSample{Workload: "power", Size: 8, Iters: 2, Nodes: 2, Mode: Incremental},
			stdout: "power n=8 iters=2 lambda=1.0e+00 hash=0123456789abcdef\n", stderr: capeRegions(3, 100, 10) + "power: iterations 0.5s\n",
			wantErr: "want 4 (2 per iteration)"},
		{name: "heat3d mp-go",
			s:      StencilSample{Workload: "heat3d", Size: 8, Iters: 3, Nodes: 2, Mode: MPGo},
			stdout: "heat3d n=8 iters=3 sum=1.5 hash=0123456789abcdef\n", stderr: "heat3d: iterations 0.3s on 2 rank(s)\n" + mp + ranksRSS,
			master: 500 * 1024, other: 700 * 1024, masterSent: 16, recvSent: 16},
		{name: "another workload's line",
			s:      StencilSample{Workload: "heat3d", Size: 8, Iters: 3, Nodes: 1, Mode: Seq},
			stdout: "cg n=8 iters=3 rr=1 hash=0123456789abcdef\n", stderr: "heat3d: iterations 0.3s\n", wantErr: "no `"},
		{name: "another size",
			s:      StencilSample{Workload: "power", Size: 9, Iters: 3, Nodes: 1, Mode: Seq},
			stdout: "power n=8 iters=3 lambda=1 hash=0123456789abcdef\n", stderr: "power: iterations 0.3s\n", wantErr: "want n=9"},
		{name: "jacobi's fill region is counted, not summed",
			s: StencilSample{Workload: "jacobi", Size: 8, Iters: 3, Nodes: 2, Mode: Incremental},
			// Region #1 fills the grids (1 MB each way); #2-#4 are the
			// iterations, 100 bytes each.
			stdout:     "n=8 iters=3 sum=1 weighted=2 last-diff=1e-3 hash=0123456789abcdef\n",
			stderr:     strings.Replace(capeRegions(4, 100, 10), "(sent 100, received 10 bytes)", "(sent 1000000, received 1000000 bytes)", 1) + "stencil: iterations 0.3s\n",
			masterSent: 100, recvSent: 100},
		{name: "jacobi without its fill region",
			s:      StencilSample{Workload: "jacobi", Size: 8, Iters: 3, Nodes: 2, Mode: Incremental},
			stdout: "n=8 iters=3 sum=1 weighted=2 last-diff=1e-3 hash=0123456789abcdef\n", stderr: capeRegions(3, 100, 10) + "stencil: iterations 0.3s\n",
			wantErr: "want 4 (1 per iteration, 1 before)"},
		{name: "jacobi prints the stencil's line",
			s:      StencilSample{Workload: "jacobi", Size: 8, Iters: 3, Nodes: 1, Mode: Seq},
			stdout: "n=8 iters=3 sum=1 weighted=2 last-diff=1e-3 hash=0123456789abcdef\n", stderr: "stencil: iterations 0.3s\nbench: peak rss 42 kB\n",
			master: 42 * 1024},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s
			err := parseStencil(&s, tc.stdout, tc.stderr)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Line != strings.TrimSpace(tc.stdout) || s.MasterRSS != tc.master || s.OtherRSS != tc.other ||
				s.MasterSent != tc.masterSent || s.OtherRecv != tc.recvSent {
				t.Fatalf("parsed %+v", s)
			}
		})
	}
}

func TestStencilCSVRoundTripAndOldHeader(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "results.csv")
	in := []StencilSample{
		{Workload: "cg", Size: 64, Iters: 3, Nodes: 2, Mode: MPGo, Seconds: 0.5, Line: "cg n=64", MasterRSS: 2048, OtherRSS: 4096, OtherRecv: 1024},
		{Workload: "stencil", Size: 64, Iters: 3, Nodes: 1, Mode: Seq, Seconds: 0.25, Line: "n=64"},
	}
	if err := writeStencilCSV(path, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadStencilCSV(path)
	if err != nil || !slices.Equal(out, in) {
		t.Fatalf("read back %+v, %v; wrote %+v", out, err, in)
	}
	// A results.csv of the stencil from before the workloads: the first
	// 23 columns.
	var b bytes.Buffer
	b.WriteString(strings.Join(stencilHeaderV1, ",") + "\n")
	b.WriteString("40,5,2,halo-go,0,false,0,,0.1,0.2,n=40,0,0,0,0,0,0,0,0,1,2,3,4\n")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = ReadStencilCSV(path)
	if err != nil || len(out) != 1 || out[0].workload() != Stencil || out[0].OtherRecv != 4 || out[0].MasterRSS != 0 {
		t.Fatalf("old header read as %+v, %v", out, err)
	}
	os.WriteFile(path, []byte("size,iters\n1,2\n"), 0o644)
	if _, err := ReadStencilCSV(path); err == nil {
		t.Fatal("a foreign header was accepted")
	}
}

func TestWorkloadModes(t *testing.T) {
	for _, tc := range []struct {
		w    *Workload
		in   string
		want []Mode
		bad  bool
	}{
		{CG, "seq, incremental,mp-go,seq", []Mode{Seq, Incremental, MPGo}, false},
		{CG, "all", CG.Modes, false},
		{CG, "halo-go", nil, true},
		{Jacobi, "halo-go", []Mode{HaloGo}, false},
		{Jacobi, "goroutines", nil, true},
		{Stencil, "mp-go", nil, true},
		{Power, " , ", nil, true},
	} {
		got, err := tc.w.ParseModes(tc.in)
		if (err != nil) != tc.bad || !slices.Equal(got, tc.want) {
			t.Errorf("%s.ParseModes(%q) = %v, %v", tc.w.Name, tc.in, got, err)
		}
	}
	for _, w := range Workloads {
		if WorkloadByName(w.Name) != w || !slices.Contains(w.Modes, w.Baseline) || w.RegionsPerIter < 1 {
			t.Errorf("workload %s is not consistent", w.Name)
		}
		for _, m := range w.DefaultModes() {
			if !slices.Contains(w.Modes, m) || m == Complete {
				t.Errorf("%s: default mode %s is not one of its modes, or is complete", w.Name, m)
			}
		}
	}
	if got, want := Stencil.DefaultModes(), []Mode{Seq, Goroutines, Incremental, HaloGo, HaloC}; !slices.Equal(got, want) {
		t.Errorf("stencil's default modes %v, want %v", got, want)
	}
	if got, want := CG.DefaultModes(), []Mode{Seq, Incremental, MPGo}; !slices.Equal(got, want) || !slices.Contains(CG.Modes, Complete) {
		t.Errorf("cg's default modes %v, want %v (its modes %v keep complete)", got, want, CG.Modes)
	}
	if WorkloadByName("nbody") != nil {
		t.Error("an unknown workload was found")
	}
}

func TestNeeds(t *testing.T) {
	for _, tc := range []struct {
		w    *Workload
		n, k int
		want float64
	}{
		{Stencil, 100, 1, 0},
		{Stencil, 100, 2, 800},      // the last node reads one row
		{Stencil, 100, 3, 1200},     // (2 + 1) / 2 rows
		{Heat3D, 10, 2, 800},        // one plane
		{CG, 50, 2, 400},            // m entries of p
		{Power, 100, 4, 800 * 0.75}, // the parts of x others computed
	} {
		if got := tc.w.needs(tc.n, tc.k); got != tc.want {
			t.Errorf("%s.needs(%d, %d) = %g, want %g", tc.w.Name, tc.n, tc.k, got, tc.want)
		}
	}
}

func TestPrebuiltFindsWhatIsThere(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"cg", "mpwork", "rsswrap"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var log bytes.Buffer
	b := prebuilt(dir, CG, []Mode{Seq, Incremental, MPGo}, &log)
	if b.have(Seq) || !b.have(Incremental) || !b.have(MPGo) || b.rsswrap == "" || b.tmp != "" {
		t.Fatalf("found %+v (a prebuilt directory is not temporary: RunStencil would remove it)", b)
	}
	if !strings.Contains(log.String(), "no prebuilt cg.seq") {
		t.Fatalf("no notice of the missing cg.seq: %q", log.String())
	}
	b = prebuilt(dir, Jacobi, []Mode{HaloGo}, &log)
	if b.have(HaloGo) {
		t.Fatal("jacobi's halogo found where there is none")
	}
}

// TestMatmulPrebuiltFindsWhatIsThere: matmul's Go binaries missing from
// a build directory are an error naming the file, its C ones a notice
// that their modes are skipped; what is there is used.
func TestMatmulPrebuiltFindsWhatIsThere(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"matmul", "goroutines"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var log bytes.Buffer
	b, err := matmulPrebuilt(dir, []Mode{Seq, Goroutines, Incremental, OMPC}, &log)
	if err != nil || !b.have(Seq) || !b.have(Goroutines) || !b.have(Incremental) || b.have(OMPC) {
		t.Fatalf("found %+v, %v", b, err)
	}
	if !strings.Contains(log.String(), "skipping omp-c: no prebuilt matmul_omp") {
		t.Errorf("no notice of the missing matmul_omp: %q", log.String())
	}
	_, err = matmulPrebuilt(dir, []Mode{Seq, MPIGoGather}, &log)
	if want := filepath.Join(dir, "mpigo"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("mpi-go-gather without mpigo: %v, want an error naming %s", err, want)
	}
	log.Reset()
	if b, err = matmulPrebuilt(dir, []Mode{MPIC}, &log); err != nil || b.have(MPIC) || !strings.Contains(log.String(), "skipping mpi-c: no prebuilt matmul_mpi") {
		t.Errorf("mpi-c without matmul_mpi: %+v, %v, notice %q", b, err, log.String())
	}
}

// TestReportNamesItsWorkload: a workload's figures are named after it,
// and only a workload with goals quotes them.
func TestReportNamesItsWorkload(t *testing.T) {
	for _, w := range []*Workload{Stencil, CG} {
		dir := t.TempDir()
		var samples []StencilSample
		for _, m := range []Mode{Seq, Incremental, w.Baseline} {
			for _, k := range []int{1, 2} {
				samples = append(samples, StencilSample{Workload: w.Name, Size: 64, Iters: 3, Nodes: k, Mode: m, Seconds: 0.5})
			}
		}
		if err := ReportStencil(dir, samples); err != nil {
			t.Fatal(err)
		}
		checkWritten(t, dir, append([]string{"results.md"}, w.Figures()...))
		for _, f := range w.Figures() {
			if !strings.HasPrefix(f, w.Name+"_") {
				t.Errorf("%s's figure %s is not named after it", w.Name, f)
			}
		}
		md, err := os.ReadFile(filepath.Join(dir, "results.md"))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(md), "goals"); got != (w.Goals != "") {
			t.Errorf("%s's results.md quotes goals: %v, want %v", w.Name, got, w.Goals != "")
		}
	}
}
