package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestHelpAndUsageErrors(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"help"}, &out, &out); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"run", "translate", "build"} {
		if !strings.Contains(out.String(), "\t"+c) {
			t.Errorf("cape help does not list %q:\n%s", c, out.String())
		}
	}
	out.Reset()
	if err := run([]string{"run", "--help"}, &out, &out); err != nil {
		t.Fatalf("cape run --help: %v", err)
	}
	for _, want := range []string{"--monitor", "--nodes", "Examples:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("cape run --help lacks %q", want)
		}
	}
	for _, args := range [][]string{
		{},
		{"frobnicate"},
		{"run"},
		{"run", "--bogus", "x"},
		{"run", "-n", "0", "x"},
		{"run", "--monitor", "soft-dirty", "x"},
		{"run", "--compress", "lz4", "x"},
		{"run", "--arena-size", "lots", "x"},
		{"run", "--timeout", "0", "x"},
		{"run", "--timeout", "-1s", "x"},
		{"run", "--checkpoint", "/no/such/dir", "--restart", "x"},
		{"run", "-n", "2", "--master-port", "7000", "x"}, // over ssh only
		{"run", "-n", "2", "--no-copy", "x"},
	} {
		err := run(args, &out, &out)
		var ue *usageError
		if !errors.As(err, &ue) {
			t.Errorf("cape %s: got %v, want a usage error", strings.Join(args, " "), err)
		}
	}
}

func TestRunMissingPackage(t *testing.T) {
	var out bytes.Buffer
	err := run([]string{"run", "-n", "2", "./no/such/package"}, &out, &out)
	if err == nil || !strings.Contains(err.Error(), "no/such/package") {
		t.Fatalf("got %v, want an error naming the package", err)
	}
}

// TestHelpOnStandardOutput checks that asked-for help goes to standard
// output for every command (cape help build | less shows it).
func TestHelpOnStandardOutput(t *testing.T) {
	for _, args := range [][]string{{"run", "--help"}, {"build", "--help"}, {"translate", "--help"}, {"help", "build"}, {"help", "translate"}} {
		var stdout, stderr bytes.Buffer
		if err := run(args, &stdout, &stderr); err != nil {
			t.Fatalf("cape %s: %v", strings.Join(args, " "), err)
		}
		if !strings.Contains(stdout.String(), "Usage: cape ") || stderr.Len() != 0 {
			t.Errorf("cape %s wrote %d bytes of help to standard output and %q to standard error", strings.Join(args, " "), stdout.Len(), stderr.String())
		}
	}
}

// TestVersion: cape version and cape --version name the Go toolchain and
// platform (and, built from a repository, the commit).
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		var out bytes.Buffer
		if err := run(args, &out, &out); err != nil {
			t.Fatalf("cape %s: %v", args[0], err)
		}
		if want := "cape "; !strings.HasPrefix(out.String(), want) || !strings.Contains(out.String(), runtime.Version()) {
			t.Errorf("cape %s printed %q, want cape, its version and %s", args[0], out.String(), runtime.Version())
		}
	}
	var ue *usageError
	if err := run([]string{"version", "x"}, io.Discard, io.Discard); !errors.As(err, &ue) {
		t.Errorf("cape version x: %v, want a usage error", err)
	}
}

// TestRunPlainBinary: a program go build made, given to cape run, is run
// with a notice that every node runs all of it.
func TestRunPlainBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"go.mod": "module example.com/plain\n\ngo 1.26\n", "main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"plain\") }\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(t.TempDir(), "plain")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, errText, err := capeRun("2", nil, bin, nil)
	if err != nil || out != "plain\n" || !strings.Contains(errText, "holds no CAPE runtime (it was not built by cape build)") {
		t.Fatalf("%v, printed %q:\n%s", err, out, errText)
	}
	if _, errText, _ := capeRun("2", nil, sharedBuild(t, "./testdata/envclean"), nil); strings.Contains(errText, "holds no CAPE runtime") {
		t.Fatalf("cape build's program taken for a plain one:\n%s", errText)
	}
}
