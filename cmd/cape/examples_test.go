package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/cape-go/cape/internal/testenv"
)

// TestExamplesMatchPlainGo runs every annotated example with plain `go run`
// (directives ignored: sequential) and with `cape run -n 3` from its
// source, and requires the same output; with CAPE_TEST_FULL=1 also on 1, 2
// and 4 nodes (the program built once).
func TestExamplesMatchPlainGo(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	for _, ex := range []struct{ name, args string }{
		{"closure", "-w 96 -h 40"},
		{"matmul", "-n 130"},
		{"reduction", "-n 20000"},
		{"sections", "-n 20000"},
		{"stencil", "-n 60 -iters 15"},
		{"timestep", "-n 20000 -steps 30"},
		{"rows", "-n 60 -m 50 -steps 3"},
		{"grid", "-n 40 -m 30 -steps 5"},
	} {
		t.Run(ex.name, func(t *testing.T) {
			dir := "../../examples/" + ex.name
			args := strings.Fields(ex.args)
			want := goRun(t, dir, args...)
			counts := []int{3}
			if testenv.IsFull() {
				counts = []int{3, 1, 2, 4}
			}
			for i, nodes := range counts {
				prog := dir
				if i > 0 {
					prog = sharedBuild(t, dir)
				}
				var stdout, stderr bytes.Buffer
				cmd := append([]string{"run", "-n", fmt.Sprint(nodes), prog, "--"}, args...)
				if err := run(cmd, &stdout, &stderr); err != nil {
					t.Fatalf("cape %s: %v\n%s", strings.Join(cmd, " "), err, stderr.String())
				}
				if stdout.String() != want {
					t.Errorf("cape run -n %d %s printed\n%s\ngo run printed\n%s", nodes, ex.name, stdout.String(), want)
				}
			}
		})
	}
}
