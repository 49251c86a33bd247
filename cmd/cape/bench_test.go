package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cape-go/cape/bench"
)

// TestBenchUsage checks cape bench's command line without running anything.
func TestBenchUsage(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"help", "bench"}, &out, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cape bench stencil", "cape bench regions", "halo-go", "halo-c", "--iters", "--k ",
		"cape bench build DIR", "--prebuilt", "jacobi", "heat3d", "edge-heated", "mp-go"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("cape help bench lacks %q", want)
		}
	}
	for _, args := range [][]string{
		{"bench", "nbody"},
		{"bench", "stencil", "--iters", "0"},
		{"bench", "stencil", "--modes", "seq,mpi-go"},
		{"bench", "stencil", "--sizes", "64,x"},
		{"bench", "regions", "--sizes", "64"},
		{"bench", "regions", "--k", "-1"},
		{"bench", "stencil", "extra"},
		{"bench", "cg", "--modes", "halo-go"},
		{"bench", "power", "--iters", "0"},
		{"bench", "build"},
	} {
		err := run(args, &out, &out)
		var ue *usageError
		if !errors.As(err, &ue) {
			t.Errorf("cape %s: %v, want a usage error", strings.Join(args, " "), err)
		}
	}
	// A build directory without matmul's binaries: an error naming the
	// first one missing, before anything runs.
	empty := t.TempDir()
	err := run([]string{"bench", "matmul", "--prebuilt", empty, "--out", t.TempDir()}, &out, &out)
	if want := filepath.Join(empty, "matmul"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("cape bench matmul --prebuilt %s: %v, want an error naming %s", empty, err, want)
	}
	err = run([]string{"bench", "regions", "--prebuilt", empty, "--out", t.TempDir()}, &out, &out)
	if want := filepath.Join(empty, "regions"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("cape bench regions --prebuilt %s: %v, want an error naming %s", empty, err, want)
	}
}

// withoutGo leaves the rest of the test without a Go toolchain: $PATH
// without the directories that hold a go binary, GOROOT pointing nowhere,
// and the working directory outside the module.
func withoutGo(t *testing.T) {
	var keep []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, "go")); err != nil {
			keep = append(keep, d)
		}
	}
	t.Setenv("PATH", strings.Join(keep, string(os.PathListSeparator)))
	t.Setenv("GOROOT", filepath.Join(t.TempDir(), "nowhere"))
	if p, err := exec.LookPath("go"); err == nil {
		t.Fatalf("go is still on $PATH: %s", p)
	}
	t.Chdir(t.TempDir())
}

// TestBenchWorkloads builds every workload's binaries and matmul's with
// cape bench build, then, with no Go toolchain left, runs each new
// workload and matmul tiny on 2 nodes from them (--prebuilt): cape bench
// itself fails when a variant's line differs from the sequential run's;
// the test checks every variant ran, printed the sequential line, and had
// its peak RSS measured.
func TestBenchWorkloads(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every workload")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bins := t.TempDir()
	var log bytes.Buffer
	if err := run([]string{"bench", "build", "--root", root, bins}, &log, &log); err != nil {
		t.Fatalf("cape bench build: %v\n%s", err, log.String())
	}
	withoutGo(t)
	t.Run("matmul", func(t *testing.T) { benchMatmulPrebuilt(t, bins) })
	t.Run("regions", func(t *testing.T) {
		out := t.TempDir()
		log.Reset()
		args := []string{"bench", "regions", "--prebuilt", bins, "--k", "50", "--nodes", "2", "--reps", "1", "--no-progress", "--out", out}
		if err := run(args, &log, &log); err != nil {
			t.Fatalf("cape %s: %v\n%s", strings.Join(args, " "), err, log.String())
		}
		csv, err := os.ReadFile(filepath.Join(out, "results.csv"))
		if err != nil {
			t.Fatal(err)
		}
		if rows := strings.Count(strings.TrimSpace(string(csv)), "\n"); rows != 1 {
			t.Errorf("regions: %d samples, want 1:\n%s", rows, csv)
		}
	})
	for _, tc := range []struct {
		name, size string
		baseline   bench.Mode
	}{
		{"jacobi", "24", bench.HaloGo},
		{"heat3d", "8", bench.MPGo},
		{"cg", "8", bench.MPGo},
		{"power", "16", bench.MPGo},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			log.Reset()
			args := []string{"bench", tc.name, "--prebuilt", bins, "--sizes", tc.size, "--nodes", "2", "--reps", "1",
				"--iters", "3", "--no-progress", "--timeout", "2m", "--out", out}
			if err := run(args, &log, &log); err != nil {
				t.Fatalf("cape %s: %v\n%s", strings.Join(args, " "), err, log.String())
			}
			samples, err := bench.ReadStencilCSV(filepath.Join(out, "results.csv"))
			if err != nil {
				t.Fatal(err)
			}
			ran := map[bench.Mode]bool{}
			for _, s := range samples {
				ran[s.Mode] = true
				if s.Line != samples[0].Line || s.Workload != tc.name {
					t.Errorf("%s: %s×%d printed %q, %s×%d %q", s.Workload, s.Mode, s.Nodes, s.Line, samples[0].Mode, samples[0].Nodes, samples[0].Line)
				}
				if s.MasterRSS <= 0 || (s.Mode != bench.Seq && s.OtherRSS <= 0) {
					t.Errorf("%s×%d: no peak RSS: %+v", s.Mode, s.Nodes, s)
				}
			}
			for _, m := range []bench.Mode{bench.Seq, bench.Incremental, tc.baseline} {
				if !ran[m] {
					t.Errorf("%s did not run (ran %v)\n%s", m, ran, log.String())
				}
			}
		})
	}
}

// benchMatmulPrebuilt runs every mode of cape bench matmul from the
// binaries in bins, tiny, on 2 nodes: the Go modes must run and print the
// same checksum; a C mode runs or is skipped with a notice saying so.
func benchMatmulPrebuilt(t *testing.T, bins string) {
	out := t.TempDir()
	var log bytes.Buffer
	args := []string{"bench", "matmul", "--prebuilt", bins, "--sizes", "48", "--nodes", "2", "--reps", "1",
		"--modes", "all", "--no-progress", "--timeout", "2m", "--out", out}
	if err := run(args, &log, &log); err != nil {
		t.Fatalf("cape %s: %v\n%s", strings.Join(args, " "), err, log.String())
	}
	samples, err := bench.ReadCSV(filepath.Join(out, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	ran := map[bench.Mode]bool{}
	for _, s := range samples {
		ran[s.Mode] = true
		if s.Checksum != samples[0].Checksum || s.Size != 48 {
			t.Errorf("%s×%d: n=%d checksum %s, %s×%d: %s", s.Mode, s.Nodes, s.Size, s.Checksum, samples[0].Mode, samples[0].Nodes, samples[0].Checksum)
		}
	}
	for _, m := range bench.AllModes {
		c := m == bench.OMPC || m == bench.MPIC
		if !ran[m] && (!c || !strings.Contains(log.String(), "skipping "+string(m)+": ")) {
			t.Errorf("%s neither ran nor was skipped with a notice (ran %v)\n%s", m, ran, log.String())
		}
	}
	for _, f := range bench.Figures {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("no %s: %v", f, err)
		}
	}
}
