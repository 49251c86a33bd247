package bench

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readCommitted reads one of the committed snapshots under results/.
func readCommitted(t *testing.T, dir string) []Sample {
	t.Helper()
	s, err := ReadCSV(filepath.Join("results", dir, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestModelEfficiencyAtMostIdeal checks the model on the snapshot where one
// fitted compute rate predicted an efficiency of 1.18 on one node (n = 1024
// is slower per multiply-add than n = 512): the modelled speedup may not
// exceed the node count.
func TestModelEfficiencyAtMostIdeal(t *testing.T) {
	for _, dir := range []string{"local", "emulated"} {
		tb := aggregate(readCommitted(t, dir))
		md := fitModel(tb)
		for _, n := range tb.sizes {
			seq, ok := tb.get(n, 1, Seq)
			if !ok {
				t.Fatalf("%s: no seq at n = %d", dir, n)
			}
			for _, k := range modelNodes(nil, 32) {
				for _, m := range []Mode{Incremental, Complete, MPIGo} {
					p, ok := md.predict(m, n, k)
					if !ok {
						t.Fatalf("%s: no prediction for %s n=%d N=%d", dir, m, n, k)
					}
					if eff := seq.median / p / float64(k); eff > 1+1e-9 {
						t.Errorf("%s: model %s n=%d N=%d: efficiency %.3f > 1", dir, m, n, k, eff)
					}
				}
			}
		}
	}
}

// TestFiguresDrawModelAndIntegerTicks redraws committed snapshots and checks
// that Fig. 4 draws the dashed model lines it announces, and labels node
// counts as integers.
func TestFiguresDrawModelAndIntegerTicks(t *testing.T) {
	// emulated-100mbit has no sequential run: the model's compute rate then
	// comes from the nodes' compute times, and is drawn all the same.
	for _, dir := range []string{"local", "emulated-100mbit"} {
		out := t.TempDir()
		if err := Report(out, readCommitted(t, dir), 32); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(out, Figures[0]))
		if err != nil {
			t.Fatal(err)
		}
		svg := string(b)
		for _, m := range []string{"incremental", "complete", "mpi-go"} {
			if !regexp.MustCompile(`<polyline [^>]*stroke-dasharray[^>]*><title>model ` + m + `</title>`).MatchString(svg) {
				t.Errorf("%s: Fig. 4 draws no dashed model line for %s", dir, m)
			}
		}
		if !strings.Contains(svg, "dashed: model") {
			t.Errorf("%s: Fig. 4's note does not explain the dashed lines", dir)
		}
		for _, l := range []string{">2<", ">4<", ">32<"} {
			if !strings.Contains(svg, l) {
				t.Errorf("%s: Fig. 4 lacks the node tick %s", dir, l)
			}
		}
		if regexp.MustCompile(`>\d+\.0+<`).MatchString(svg) {
			t.Errorf("%s: Fig. 4 labels an integer with decimals: %s", dir, regexp.MustCompile(`>\d+\.0+<`).FindString(svg))
		}
	}
}

func TestChartNoteWithoutModel(t *testing.T) {
	c := &chart{series: []series{{name: "incremental", points: []point{{1, 1, 1, 1}}}}}
	c.modelNote("points: measured", "model", &model{notes: []string{"no sequential run"}})
	if strings.Contains(c.note, "dashed") || !strings.Contains(c.note, "no model line") {
		t.Fatalf("note %q for a chart without model lines", c.note)
	}
}

func TestTickLabels(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want string
	}{
		{[]float64{1, 2, 4, 8}, "1 2 4 8"},
		{[]float64{0, 0.3, 0.6, 0.9, 1.2}, "0 0.3 0.6 0.9 1.2"},
		{[]float64{0, 2, 4, 6, 8, 10}, "0 2 4 6 8 10"},
		{[]float64{0, 0.25, 0.5}, "0 0.25 0.50"},
	} {
		if got := strings.Join(tickLabels(tc.in), " "); got != tc.want {
			t.Errorf("tickLabels(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestCommittedResultsAreRedrawn checks that every snapshot under results/
// is what cape bench report draws from its results.csv: the committed
// tables and figures are never hand-edited or left stale.
func TestCommittedResultsAreRedrawn(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("results", "*", "results.csv"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no committed results: %v", err)
	}
	for _, csv := range dirs {
		dir := filepath.Dir(csv)
		data, err := os.ReadFile(csv)
		if err != nil {
			t.Fatal(err)
		}
		// Any benchmark's snapshot (matmul, stencil, regions): ReportDir
		// tells them apart by the header.
		out := t.TempDir()
		if err := os.WriteFile(filepath.Join(out, "results.csv"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := ReportDir(out, 32); err != nil {
			t.Fatal(err)
		}
		drawn, err := os.ReadDir(out)
		if err != nil || len(drawn) < 3 {
			t.Fatalf("ReportDir drew %d files: %v", len(drawn), err)
		}
		for _, e := range drawn {
			f := e.Name()
			if f == "results.csv" {
				continue
			}
			want, err := os.ReadFile(filepath.Join(out, f))
			if err != nil {
				t.Fatal(err)
			}
			if got, err := os.ReadFile(filepath.Join(dir, f)); err != nil || string(got) != string(want) {
				t.Errorf("%s differs from what cape bench report draws from its results.csv (%v): run go run ./cmd/cape bench report %s", filepath.Join(dir, f), err, dir)
			}
		}
	}
}
