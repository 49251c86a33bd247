package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	capesrc "github.com/cape-go/cape"
	"github.com/cape-go/cape/internal/testenv"
)

// TestOfflineFirstBuild is an air-gapped login node's first build (issue
// 26): another user with an empty HOME, an empty module cache and build
// cache, GOPROXY=off and GOFLAGS=-mod=mod runs cape translate, cape build
// and cape run on a fresh module. Everything the runtime needs comes from
// the cape binary; the output must be go run's, and nothing may have been
// downloaded.
func TestOfflineFirstBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the standard library from an empty build cache")
	}
	// Half a minute of compiling the standard library; TestUserModule
	// is the default run's first build of a user's module.
	testenv.Full(t)
	t.Parallel()
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		testenv.Skip(t, "switching to another user needs root on Linux")
	}
	if !capesrc.ShipsPlatform(runtime.GOOS, runtime.GOARCH) {
		t.Fatalf("the cape binary carries no runtime dependencies for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		testenv.Skip(t, "setpriv (util-linux) is not installed")
	}
	const uid = "65534"
	top, err := os.MkdirTemp("", "cape-offline-")
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
	home := filepath.Join(top, "home")
	dir := filepath.Join(top, "work", "heat")
	modcache := filepath.Join(top, "gomodcache")
	for _, d := range []string{home, dir, modcache, filepath.Join(top, "gocache")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	want := newUserModule(t, dir, "example.com/heat")
	if out, err := exec.Command("chown", "-R", uid+":"+uid, home, filepath.Dir(dir), modcache, filepath.Join(top, "gocache")).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v\n%s", err, out)
	}
	as := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(setpriv, append([]string{"--reuid=" + uid, "--regid=" + uid, "--clear-groups", bin}, args...)...)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GOPROXY=off", "GOFLAGS=-mod=mod",
			"GOMODCACHE=" + modcache, "GOCACHE=" + filepath.Join(top, "gocache"), "GOTOOLCHAIN=local", "TMPDIR=" + home}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("cape %s as uid %s, offline: %v\nstderr:\n%s", strings.Join(args, " "), uid, err, stderr.String())
		}
		return stdout.String()
	}
	if tr := as("translate", "."); !strings.Contains(tr, "cape.Begin") {
		t.Errorf("cape translate . printed no region template:\n%s", tr)
	}
	out := filepath.Join(home, "heat")
	as("build", ".", "-o", out)
	if got := as("run", "-n", "3", out, "--", "-n", "1500"); got != want {
		t.Errorf("offline, cape build then cape run -n 3 printed %q, go run printed %q", got, want)
	}
	if got := as("run", "-n", "2", ".", "--", "-n", "1500"); got != want {
		t.Errorf("offline, cape run -n 2 . printed %q, go run printed %q", got, want)
	}
	if fi, err := os.Stat(filepath.Join(home, ".cache", "cape")); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the runtime cache in the empty HOME: %v, %v; want a 0700 directory", fi, err)
	}
	downloaded, _ := filepath.Glob(filepath.Join(modcache, "cache", "download", "*"))
	if len(downloaded) > 0 {
		t.Errorf("modules were put in the empty module cache: %v", downloaded)
	}
}
