package gocmd

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestGoflagsLdflags(t *testing.T) {
	for goflags, want := range map[string]string{
		"":                              "",
		"-mod=mod -trimpath":            "",
		"-ldflags=-s":                   "-s",
		"--ldflags=-w -ldflags=-s":      "-s",
		`'-ldflags=-s -w' -trimpath`:    "-s -w",
		`"-ldflags=all=-X=main.v=1 -s"`: "-X=main.v=1 -s",
		"-ldflags=-X=main.version=a=b":  "-X=main.version=a=b",
		"-gcflags=all=-N -ldflags=-linkmode=internal": "-linkmode=internal",
	} {
		if got := goflagsLdflags(goflags); got != want {
			t.Errorf("goflagsLdflags(%q) = %q, want %q", goflags, got, want)
		}
	}
}

// TestBuildKeepsGoflagsLdflags: the linker flags of the user's GOFLAGS
// reach the link beside the program's digest (a -X the program prints).
func TestBuildKeepsGoflagsLdflags(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "go.mod", "module example.com/ver\n\ngo 1.26\n")
	writeFile(t, dir, "main.go", `package main

import "fmt"

var version = "none"

func main() {
	a := make([]int, 8)
	//cape:parallel for
	for i := range a {
		a[i] = i
	}
	fmt.Println(version, a[7])
}
`)
	t.Setenv("GOFLAGS", "'-ldflags=-X=main.version=v1.2.3 -s'")
	bin := filepath.Join(t.TempDir(), "ver")
	var stderr bytes.Buffer
	if err := Build(context.Background(), dir, bin, &stderr); err != nil {
		t.Fatalf("Build: %v\n%s", err, stderr.String())
	}
	out, err := exec.Command("go", "version", "-m", bin).CombinedOutput()
	if err != nil {
		t.Fatalf("go version -m: %v\n%s", err, out)
	}
	ld := ""
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "build" && strings.HasPrefix(f[1], "-ldflags=") {
			ld = line
		}
	}
	for _, want := range []string{"-X=main.version=v1.2.3", "-s", digestVar} {
		if !strings.Contains(ld, want) {
			t.Errorf("the binary's build line %q lacks %q", ld, want)
		}
	}
}

// TestBuildWithoutHome: with neither HOME, GOPATH nor GOMODCACHE set (a
// batch system's bare environment; GOCACHE given), go run builds a program
// and so does Build (the go command refused the overlay: every file lay
// "beneath" an empty module cache).
func TestBuildWithoutHome(t *testing.T) {
	cache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFile(t, dir, "go.mod", "module example.com/bare\n\ngo 1.26\n")
	writeFile(t, dir, "main.go", "package main\n\nfunc main() {\n\ta := make([]int, 8)\n\t//cape:parallel for\n\tfor i := range a {\n\t\ta[i] = i\n\t}\n\tprintln(a[7])\n}\n")
	t.Setenv("GOCACHE", strings.TrimSpace(string(cache)))
	for _, k := range []string{"HOME", "GOPATH", "GOMODCACHE", "XDG_CONFIG_HOME"} {
		t.Setenv(k, "")
	}
	var stderr bytes.Buffer
	if err := Build(context.Background(), dir, filepath.Join(t.TempDir(), "bare"), &stderr); err != nil {
		t.Fatalf("Build: %v\n%s", err, stderr.String())
	}
}
