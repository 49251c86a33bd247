package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestBenchUsage checks cape bench's command line without running anything.
func TestBenchUsage(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"help", "bench"}, &out, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cape bench stencil", "cape bench regions", "halo-go", "halo-c", "--iters", "--k "} {
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
	} {
		err := run(args, &out, &out)
		var ue *usageError
		if !errors.As(err, &ue) {
			t.Errorf("cape %s: %v, want a usage error", strings.Join(args, " "), err)
		}
	}
}
