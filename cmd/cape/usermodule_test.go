package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cape-go/cape/internal/testenv"
)

// heatProgram is a user's annotated program: a 1-D heat equation with one
// region per time step, written to README's grammar.
const heatProgram = `package main

import (
	"flag"
	"fmt"
)

func main() {
	n := flag.Int("n", 2000, "points")
	steps := flag.Int("steps", 30, "time steps")
	flag.Parse()
	u := make([]float64, *n)
	next := make([]float64, *n)
	u[*n/2] = 1000
	for s := 0; s < *steps; s++ {
		//cape:parallel for
		for i := 1; i < *n-1; i++ {
			next[i] = u[i] + 0.25*(u[i-1]-2*u[i]+u[i+1])
		}
		u, next = next, u
	}
	var sum float64
	for _, v := range u {
		sum += v
	}
	fmt.Printf("sum=%.6f mid=%.6f\n", sum, u[*n/2])
}
`

// buildCape builds the cape command into a fresh directory and returns
// the executable's path, as a user who ran go install would have it.
func buildCape(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "cape")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build cape: %v\n%s", err, out)
	}
	return bin
}

// newUserModule writes heatProgram into dir, in a module of its own unless
// modPath is empty, and returns the plain `go run` output.
func newUserModule(t *testing.T, dir, modPath string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(heatProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	target := "."
	if modPath != "" {
		cmd := exec.Command("go", "mod", "init", modPath)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go mod init: %v\n%s", err, out)
		}
	} else {
		target = "main.go"
	}
	cmd := exec.Command("go", "run", target, "-n", "1500")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run: %v", err)
	}
	return string(out)
}

// snapshot returns every file below dir with its contents.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		files[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func sameFiles(t *testing.T, before, after map[string]string) {
	t.Helper()
	for p, b := range before {
		if a, ok := after[p]; !ok || a != b {
			t.Errorf("%s was changed or removed by cape", p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("cape left %s in the user's directory", p)
		}
	}
}

// capeIn runs the cape executable bin in dir and returns its stdout.
func capeIn(t *testing.T, bin, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("cape %s in %s: %v\nstderr:\n%s", strings.Join(args, " "), dir, err, stderr.String())
	}
	return stdout.String()
}

// TestUserModule is what a new user does first: a fresh module in a
// temporary directory, an annotated program, `cape run -n 3 .` with a cape
// binary copied away from this repository. The output must be go run's,
// and the user's files must be left as they were.
func TestUserModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs")
	}
	t.Parallel()
	bin := buildCape(t, t.TempDir())
	copied := filepath.Join(t.TempDir(), "elsewhere", filepath.Base(bin))
	if err := os.MkdirAll(filepath.Dir(copied), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copied, b, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Remove(bin)

	t.Run("module", func(t *testing.T) {
		dir := t.TempDir()
		want := newUserModule(t, dir, "example.com/heat")
		before := snapshot(t, dir)
		for _, n := range []string{"2", "3"} {
			if got := capeIn(t, copied, dir, nil, "run", "-n", n, ".", "--", "-n", "1500"); got != want {
				t.Errorf("cape run -n %s . printed %q, go run printed %q", n, got, want)
			}
		}
		out := filepath.Join(t.TempDir(), "heat")
		capeIn(t, copied, dir, nil, "build", ".", "-o", out)
		if got := capeIn(t, copied, dir, nil, "run", "-n", "3", out, "--", "-n", "1500"); got != want {
			t.Errorf("cape build, then cape run -n 3 of the binary printed %q, go run printed %q", got, want)
		}
		if tr := capeIn(t, copied, dir, nil, "translate", "."); !strings.Contains(tr, "cape.Begin") {
			t.Errorf("cape translate . printed no region template:\n%s", tr)
		}
		sameFiles(t, before, snapshot(t, dir))
	})

	t.Run("no-module", func(t *testing.T) {
		dir := t.TempDir()
		want := newUserModule(t, dir, "")
		before := snapshot(t, dir)
		if got := capeIn(t, copied, dir, []string{"GO111MODULE="}, "run", "-n", "2", ".", "--", "-n", "1500"); got != want {
			t.Errorf("cape run -n 2 . outside any module printed %q, go run main.go printed %q", got, want)
		}
		sameFiles(t, before, snapshot(t, dir))
	})

	t.Run("old-go-line", func(t *testing.T) {
		dir := t.TempDir()
		want := newUserModule(t, dir, "example.com/old")
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/old\n\ngo 1.21\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(copied, "run", "-n", "2", ".", "--", "-n", "1500")
		cmd.Dir = dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("cape run: %v\n%s", err, stderr.String())
		}
		if stdout.String() != want {
			t.Errorf("printed %q, want %q", stdout.String(), want)
		}
		if !strings.Contains(stderr.String(), "declares go 1.21") {
			t.Errorf("no notice that the language version was raised; stderr:\n%s", stderr.String())
		}
		// A loop variable that outlives its iteration would mean
		// something else under the raised version: refused, named.
		capture := "package main\n\nfunc captured() (fs []func() int) {\n\tfor i := 0; i < 3; i++ {\n\t\tfs = append(fs, func() int { return i })\n\t}\n\treturn\n}\n"
		if err := os.WriteFile(filepath.Join(dir, "capture.go"), []byte(capture), 0o644); err != nil {
			t.Fatal(err)
		}
		stdout.Reset()
		stderr.Reset()
		cmd = exec.Command(copied, "run", "-n", "2", ".", "--", "-n", "1500")
		cmd.Dir = dir
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err == nil || !strings.Contains(stderr.String(), "capture.go:5:39") || !strings.Contains(stderr.String(), "outlives its iteration") {
			t.Errorf("a captured loop variable under go 1.21: %v, want a refusal naming capture.go:5:39\n%s", err, stderr.String())
		}
	})
}

// TestUserModuleOtherUser runs a user's module as another user of the
// machine, with an empty module cache and no network: the runtime's
// dependencies come from a file:// module proxy, the runtime itself from the
// cape binary.
func TestUserModuleOtherUser(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs")
	}
	// Half a minute of compiling the standard library into an empty
	// build cache; TestUserModule is the default run's user module.
	testenv.Full(t)
	t.Parallel()
	top, as := otherUserCape(t, "cape-otheruser-")
	proxy := filepath.Join(top, "proxy")
	copyModuleDownloads(t, proxy, "golang.org/x/sys", "github.com/klauspost/compress", "github.com/spf13/pflag")
	home := filepath.Join(top, "home")
	dir := filepath.Join(home, "heat")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	want := newUserModule(t, dir, "example.com/heat")
	if out, err := exec.Command("chown", "-R", otherUID+":"+otherUID, home).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v\n%s", err, out)
	}
	got := as(dir, []string{"HOME=" + home, "GOPROXY=file://" + proxy, "GOSUMDB=off", "GOTOOLCHAIN=local", "GOFLAGS=", "TMPDIR=" + home},
		"run", "-n", "3", ".", "--", "-n", "1500")
	if got != want {
		t.Errorf("as another user, cape run -n 3 printed %q, go run printed %q", got, want)
	}
	fi, err := os.Stat(filepath.Join(home, ".cache", "cape"))
	if err != nil {
		t.Fatalf("no per-user runtime cache: %v", err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("the runtime cache %s has mode %v, want 0700", filepath.Join(home, ".cache", "cape"), fi.Mode().Perm())
	}
}

// otherUID is the user that otherUserCape's tests run cape as.
const otherUID = "65534"

// otherUserCape skips the test unless it runs as root on Linux with
// setpriv. It returns a temporary directory that every user may read
// (removed at the end), holding a cape binary that otherUID may run, and a
// function that runs that binary as otherUID in dir with PATH and env
// alone, fails the test if it fails, and returns its stdout.
func otherUserCape(t *testing.T, prefix string) (top string, as func(dir string, env []string, args ...string) string) {
	t.Helper()
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		testenv.Skip(t, "switching to another user needs root on Linux")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		testenv.Skip(t, "setpriv (util-linux) is not installed")
	}
	top, err = os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(top) })
	if err := os.Chmod(top, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := buildCape(t, top)
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	as = func(dir string, env []string, args ...string) string {
		t.Helper()
		cmd := exec.Command(setpriv, append([]string{"--reuid=" + otherUID, "--regid=" + otherUID, "--clear-groups", bin}, args...)...)
		cmd.Dir = dir
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("cape %s as uid %s (%s): %v\nstderr:\n%s", strings.Join(args, " "), otherUID, strings.Join(env, " "), err, stderr.String())
		}
		return stdout.String()
	}
	return top, as
}

// copyModuleDownloads copies the module cache's download files of the
// named modules into dir, a directory usable as a file:// GOPROXY.
func copyModuleDownloads(t *testing.T, dir string, mods ...string) {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(strings.TrimSpace(string(out)), "cache", "download")
	for _, m := range mods {
		src := filepath.Join(cache, m)
		if _, err := os.Stat(src); err != nil {
			t.Fatalf("module %s is not in the module cache: %v", m, err)
		}
		dst := filepath.Join(dir, m)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("cp", "-r", src, dst).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v\n%s", err, out)
		}
	}
	if out, err := exec.Command("chmod", "-R", "a+rX", dir).CombinedOutput(); err != nil {
		t.Fatalf("chmod: %v\n%s", err, out)
	}
}
