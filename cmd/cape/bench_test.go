package main

import (
	"bytes"
	"errors"
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
		{"bench", "matmul", "--prebuilt", "/tmp"},
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
}

// TestBenchWorkloads builds every workload's binaries with cape bench
// build, then runs each new workload tiny on 2 nodes from them
// (--prebuilt): cape bench itself fails when a variant's line differs from
// the sequential run's; the test checks every variant ran, printed the
// sequential line, and had its peak RSS measured.
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
