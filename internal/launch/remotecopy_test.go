//go:build unix

package launch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sh runs a remote script here, as ssh would on a host, with env as its
// whole environment.
func sh(t *testing.T, script string, env []string, stdin []byte) (string, string, error) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return strings.TrimSpace(out.String()), errb.String(), err
}

func hexSum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// TestRemoteCopyScripts runs the scripts of a remote copy on this machine:
// the private directory is made under a safe base (never under a base that
// others may write), the copy is checked by SHA-256, a program already at
// the same path is copied in only if it matches, and the check before each
// start refuses a changed program or a directory that is no longer private.
func TestRemoteCopyScripts(t *testing.T) {
	home, tmp := t.TempDir(), t.TempDir()
	open := filepath.Join(t.TempDir(), "open") // writable by anyone, not sticky
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + tmp, "XDG_RUNTIME_DIR=" + open}
	prog := []byte("#!/bin/sh\necho the program\n")
	sum := hexSum(prog)
	bin := filepath.Join(t.TempDir(), "prog") // not there yet

	out, errText, err := sh(t, prepareScript(bin, "prog", sum), env, nil)
	word, dir, _ := strings.Cut(out, " ")
	if err != nil || word != "cape-need" {
		t.Fatalf("prepare: %q, %v, %s", out, err, errText)
	}
	if !strings.HasPrefix(dir, tmp+"/cape-run.") {
		t.Errorf("private directory %s is not below TMPDIR %s (XDG_RUNTIME_DIR is writable by others and must be skipped)", dir, tmp)
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("private directory %s: %v, %v", dir, st.Mode(), err)
	}
	if out, errText, err := sh(t, copyScript(dir, "prog", hexSum([]byte("other"))), env, prog); err == nil {
		t.Errorf("copy with the wrong SHA-256 succeeded: %q", out)
	} else if !strings.Contains(errText, "does not match") {
		t.Errorf("copy with the wrong SHA-256: %v, %s", err, errText)
	}
	if out, errText, err := sh(t, copyScript(dir, "prog", sum), env, prog); err != nil || out != "cape-copied" {
		t.Fatalf("copy: %q, %v, %s", out, err, errText)
	}
	path := dir + "/prog"
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, prog) {
		t.Fatalf("copied program: %q, %v", b, err)
	}
	run := guardScript(path, sum) + "exec " + shellQuote(path)
	if out, errText, err := sh(t, run, env, nil); err != nil || out != "the program" {
		t.Fatalf("start: %q, %v, %s", out, err, errText)
	}

	// Changed after the copy: refused, and not run.
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho wrapper ran\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if out, errText, err := sh(t, run, env, nil); err == nil || strings.Contains(out, "wrapper") || !strings.Contains(errText, "not the program") {
		t.Errorf("changed program: %q, %v, %s", out, err, errText)
	}
	if err := os.WriteFile(path, prog, 0o700); err != nil {
		t.Fatal(err)
	}
	// A directory others may write is not private.
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if out, _, err := sh(t, run, env, nil); err == nil {
		t.Errorf("program in a directory of mode 0777 was run: %q", out)
	}
	if _, errText, err := sh(t, copyScript(dir, "prog", sum), env, prog); err == nil || !strings.Contains(errText, "not a private directory") {
		t.Errorf("copy into a directory of mode 0777: %v, %s", err, errText)
	}

	// The program at the same path: copied in when it matches.
	if err := os.WriteFile(bin, prog, 0o755); err != nil {
		t.Fatal(err)
	}
	out, errText, err = sh(t, prepareScript(bin, "prog", sum), env, nil)
	word, dir2, _ := strings.Cut(out, " ")
	if err != nil || word != "cape-have" || dir2 == dir {
		t.Fatalf("prepare with the program there: %q, %v, %s", out, err, errText)
	}
	if b, err := os.ReadFile(dir2 + "/prog"); err != nil || !bytes.Equal(b, prog) {
		t.Fatalf("program copied in: %q, %v", b, err)
	}
	if out, _, err := sh(t, prepareScript(bin, "prog", hexSum([]byte("other"))), env, nil); err != nil || !strings.HasPrefix(out, "cape-need ") {
		t.Errorf("prepare with a different program there: %q, %v", out, err)
	}
}

// TestRemoteCopyWithoutHasher: a host with no SHA-256 tool is refused
// before anything is copied.
func TestRemoteCopyWithoutHasher(t *testing.T) {
	bindir := t.TempDir()
	for _, tool := range []string{"id", "find", "dirname", "mktemp", "chmod", "rm", "cp", "mv", "cat"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("%s not found", tool)
		}
		if err := os.Symlink(p, filepath.Join(bindir, tool)); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"PATH=" + bindir, "HOME=" + t.TempDir(), "TMPDIR=" + t.TempDir()}
	out, errText, err := sh(t, prepareScript("/nonexistent/prog", "prog", hexSum(nil)), env, nil)
	if err != nil || out != "cape-nohash" {
		t.Fatalf("prepare without sha256sum: %q, %v, %s", out, err, errText)
	}
}
