package bench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cape-go/cape/internal/testenv"
)

// needTools skips t unless every tool is on PATH, saying that what cannot
// run without it.
func needTools(t *testing.T, what string, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Skip(t, "%s not installed: %s cannot run (run .ci/bench-setup.sh)", tool, what)
		}
	}
}

// needEmulation skips t unless the emulated cluster can be built: it needs
// root and ip (iproute2).
func needEmulation(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		testenv.Skip(t, "the emulated cluster needs root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		testenv.Skip(t, "ip (iproute2) not installed (run .ci/bench-setup.sh)")
	}
}

// tinySetup fills in what every tiny end-to-end run of a benchmark shares:
// the module root, a fresh output directory and a log. It returns the log
// and a context that ends after timeout.
func tinySetup(t *testing.T, cfg *Config, timeout time.Duration) (*strings.Builder, context.Context) {
	t.Helper()
	root, err := ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	log := new(strings.Builder)
	cfg.Root, cfg.Out, cfg.Log = root, t.TempDir(), log
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	return log, ctx
}

// checkWritten checks that each of files is in dir and not empty.
func checkWritten(t *testing.T, dir string, files []string) {
	t.Helper()
	for _, f := range files {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
}

// checkRan checks that every mode of want is in seen.
func checkRan(t *testing.T, want []Mode, seen map[Mode]bool, log string) {
	t.Helper()
	for _, m := range want {
		if !seen[m] {
			t.Errorf("mode %s did not run (log: %s)", m, log)
		}
	}
}

// checkMarkdown checks that dir/results.md says each of wants.
func checkMarkdown(t *testing.T, dir string, wants []string) {
	t.Helper()
	md, _ := os.ReadFile(filepath.Join(dir, "results.md"))
	for _, want := range wants {
		if !strings.Contains(string(md), want) {
			t.Errorf("results.md lacks %q", want)
		}
	}
}

// readBack reads dir/results.csv with read and checks that it holds the n
// samples that run returned.
func readBack[S any](t *testing.T, read func(path string) ([]S, error), dir string, n int, run string) []S {
	t.Helper()
	back, err := read(filepath.Join(dir, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != n {
		t.Fatalf("results.csv has %d samples, %s returned %d", len(back), run, n)
	}
	return back
}
