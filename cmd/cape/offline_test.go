package main

import (
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
	top, as := otherUserCape(t, "cape-offline-")
	if !capesrc.ShipsPlatform(runtime.GOOS, runtime.GOARCH) {
		t.Fatalf("the cape binary carries no runtime dependencies for %s/%s", runtime.GOOS, runtime.GOARCH)
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
	if out, err := exec.Command("chown", "-R", otherUID+":"+otherUID, home, filepath.Dir(dir), modcache, filepath.Join(top, "gocache")).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v\n%s", err, out)
	}
	env := []string{"HOME=" + home, "GOPROXY=off", "GOFLAGS=-mod=mod",
		"GOMODCACHE=" + modcache, "GOCACHE=" + filepath.Join(top, "gocache"), "GOTOOLCHAIN=local", "TMPDIR=" + home}
	if tr := as(dir, env, "translate", "."); !strings.Contains(tr, "cape.Begin") {
		t.Errorf("cape translate . printed no region template:\n%s", tr)
	}
	out := filepath.Join(home, "heat")
	as(dir, env, "build", ".", "-o", out)
	if got := as(dir, env, "run", "-n", "3", out, "--", "-n", "1500"); got != want {
		t.Errorf("offline, cape build then cape run -n 3 printed %q, go run printed %q", got, want)
	}
	if got := as(dir, env, "run", "-n", "2", ".", "--", "-n", "1500"); got != want {
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
