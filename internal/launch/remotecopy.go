package launch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// The program is copied to a host, and run there, only from a private
// directory: one that the copy creates (mktemp -d, so named unpredictably
// and created atomically), owned by the user and of mode 0700, below a
// directory that no other user can rename it out of (every directory above
// it owned by root or the user, and sticky where others may write). A user
// of the host who is not root can then neither replace the program nor make
// the job run something else: the copy is compared with the program by
// SHA-256 after it is written, again after it is renamed into place, and
// again just before each node executes it. No other directory is trusted: a
// host that holds the program at the same path (a shared filesystem) gets a
// local copy of it into the private directory, checked the same way. Hosts
// need sha256sum (GNU coreutils), shasum (Perl, macOS) or openssl; a host
// with none of them is refused with an error saying so (--no-copy runs the
// program at its path unchecked, on the user's word).

// remoteLib is the shell functions of the copy and start scripts.
const remoteLib = `u=$(id -u)
private() { [ -d "$1" ] && [ -n "$(find "$1" -prune -user "$u" -perm 700 -print 2>/dev/null)" ]; }
safe() {
	p=$1
	case $p in /*) ;; *) return 1;; esac
	while :; do
		[ -n "$(find "$p" -prune \( -user 0 -o -user "$u" \) \( -perm -1000 -o ! -perm -0020 ! -perm -0002 \) -print 2>/dev/null)" ] || return 1
		[ "$p" = / ] && return 0
		p=$(dirname -- "$p")
	done
}
hasher() { command -v sha256sum || command -v shasum || command -v openssl; } >/dev/null 2>&1
sum() {
	if command -v sha256sum >/dev/null 2>&1; then s=$(sha256sum <"$1")
	elif command -v shasum >/dev/null 2>&1; then s=$(shasum -a 256 <"$1")
	else s=$(openssl dgst -sha256 <"$1") && s=${s##* }
	fi && echo "${s%% *}"
}
`

// prepareScript makes the private directory and, if the host holds the
// program at the same path, copies it in. It answers "cape-have DIR",
// "cape-need DIR" (send it) or "cape-nohash".
func prepareScript(bin, name, sum string) string {
	return remoteLib + fmt.Sprintf(`hasher || { echo cape-nohash; exit 0; }
d=
for b in "$XDG_RUNTIME_DIR" "${TMPDIR:-/tmp}" /tmp "$HOME"; do
	[ -n "$b" ] && b=$(cd "$b" 2>/dev/null && pwd -P) && safe "$b" || continue
	d=$(umask 077 && mktemp -d "$b/cape-run.XXXXXXXXXX" 2>/dev/null) || { d=; continue; }
	if chmod 700 "$d" && private "$d" && printf '#!/bin/sh\n' >"$d/.probe" && chmod 700 "$d/.probe" && "$d/.probe"; then
		rm -f "$d/.probe"; break
	fi
	rm -rf "$d"; d=
done
[ -n "$d" ] || { echo "cape: no private directory for the program (tried \$XDG_RUNTIME_DIR, \$TMPDIR, /tmp and \$HOME: each must be owned by you or root, not writable by others unless sticky, and allow executing)" >&2; exit 1; }
if [ -f %[1]s ] && cp %[1]s "$d/.cape-in" 2>/dev/null && [ "$(sum "$d/.cape-in")" = %[3]s ] &&
	chmod 700 "$d/.cape-in" && mv -f "$d/.cape-in" "$d/"%[2]s && [ "$(sum "$d/"%[2]s)" = %[3]s ]; then
	echo "cape-have $d"
else
	rm -f "$d/.cape-in" "$d/"%[2]s; echo "cape-need $d"
fi
`, shellQuote(bin), shellQuote(name), sum)
}

// copyScript receives the program on stdin into the private directory dir.
func copyScript(dir, name, sum string) string {
	return remoteLib + fmt.Sprintf(`d=%[1]s
private "$d" && safe "$(dirname -- "$d")" || { echo "cape: $d is not a private directory of yours any more" >&2; exit 1; }
cat >"$d/.cape-in" && chmod 700 "$d/.cape-in" || exit 1
[ "$(sum "$d/.cape-in")" = %[3]s ] || { echo "cape: the program received in $d does not match its SHA-256" >&2; exit 1; }
mv -f "$d/.cape-in" "$d/"%[2]s && [ "$(sum "$d/"%[2]s)" = %[3]s ] || { echo "cape: the program in $d changed after it was received" >&2; exit 1; }
echo cape-copied
`, shellQuote(dir), shellQuote(name), sum)
}

// guardScript checks, just before a node executes the copy at path, that
// its directory is still private and the copy unchanged.
func guardScript(path, sum string) string {
	return remoteLib + fmt.Sprintf(`private "$(dirname -- %[1]s)" && [ "$(sum %[1]s)" = %[2]s ] || `+
		`{ echo "cape: "%[1]s" is not the program copied there (SHA-256 or its directory's owner or mode changed): not running it" >&2; exit 126; }
`, shellQuote(path), sum)
}

// reapScript, run by a node's start script after guardScript and before
// it executes the copy at path, leaves a process on the host that removes
// the copy's private directory once this node's program has ended and no
// other node of the job on the host still runs (each marks itself with a
// file in the directory while it runs). cape run removes the directory
// after the job; this removes it also when cape run cannot (kill -9). The
// watcher holds none of the session's descriptors, so that ssh ends with
// the program, and ignores the hang-up of the session's end.
func reapScript(path string) string {
	return fmt.Sprintf(`d=$(dirname -- %[1]s); m="$d/.node-$$"; : >"$m" || exit 126
( trap '' HUP INT TERM; while kill -0 $$ 2>/dev/null; do sleep 1; done
  rm -f -- "$m"; set -- "$d"/.node-*; [ -e "$1" ] || { ! private "$d" || rm -rf -- "$d"; } ) </dev/null >/dev/null 2>&1 &
`, shellQuote(path))
}

// hostCopy is the program as copied to one host.
type hostCopy struct {
	dir  string // the private directory, removed after the job
	path string // the program in it
	sum  string // its SHA-256, hex
}

// programOn maps a host to the path of the program there and the copy's
// SHA-256 ("" under --no-copy: the program's own path, unchecked).
type programOn map[string]hostCopy

func (m programOn) path(host, bin string) (string, string) {
	if c, ok := m[host]; ok {
		return c.path, c.sum
	}
	return bin, ""
}

// prepareHosts checks, concurrently, that every host answers over ssh and,
// unless r.NoCopy, copies the program into a private directory there. It
// returns the copies (to run, and to remove afterwards), also on error.
func prepareHosts(ctx context.Context, s Spec, r Remote, placement []string) (programOn, error) {
	var hosts []string
	seen := map[string]bool{}
	for _, h := range placement[1:] {
		if !seen[h] {
			seen[h] = true
			hosts = append(hosts, h)
		}
	}
	var data []byte
	if !r.NoCopy {
		var err error
		if data, err = os.ReadFile(s.Binary); err != nil {
			return nil, fmt.Errorf("read the program: %w", err)
		}
	}
	var (
		mu     sync.Mutex
		copies = programOn{}
		errs   = make([]error, len(hosts))
		wg     sync.WaitGroup
	)
	for i, h := range hosts {
		wg.Go(func() {
			c, err := prepareHost(ctx, r, h, s.Binary, data)
			errs[i] = err
			if c != nil {
				mu.Lock()
				copies[h] = *c
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return copies, errors.Join(errs...)
}

// prepareHost checks that host answers and, unless data is nil (no copy),
// copies the program there; see the comment at the top of this file.
func prepareHost(ctx context.Context, r Remote, host, bin string, data []byte) (*hostCopy, error) {
	if data == nil {
		_, err := runSSH(ctx, r, host, "echo cape-ok", nil)
		return nil, err
	}
	h := sha256.Sum256(data)
	sum := hex.EncodeToString(h[:])
	name := filepath.Base(bin)
	if strings.HasPrefix(name, ".") {
		name = "prog" + name
	}
	out, err := runSSH(ctx, r, host, prepareScript(bin, name, sum), nil)
	if err != nil {
		return nil, err
	}
	word, dir, _ := strings.Cut(strings.TrimSpace(out), " ")
	switch {
	case word == "cape-nohash":
		return nil, fmt.Errorf("host %s has none of sha256sum, shasum or openssl to check the copy of the program "+
			"(install coreutils there, or put the program at %s yourself and give --no-copy)", host, bin)
	case (word == "cape-have" || word == "cape-need") && strings.HasPrefix(dir, "/"):
	default:
		return nil, fmt.Errorf("host %s: unexpected answer to the program check: %q", host, out)
	}
	c := &hostCopy{dir: dir, path: dir + "/" + name, sum: sum}
	if word == "cape-have" {
		return c, nil
	}
	out, err = runSSH(ctx, r, host, copyScript(dir, name, sum), strings.NewReader(string(data)))
	if err == nil && strings.TrimSpace(out) != "cape-copied" {
		err = fmt.Errorf("unexpected answer %q", out)
	}
	if err != nil {
		return c, fmt.Errorf("copy %s to %s: %w", bin, host, err)
	}
	return c, nil
}

// cleanupHosts removes the private directories of the copies.
func cleanupHosts(r Remote, copies programOn, stderr io.Writer) {
	if len(copies) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for host, c := range copies {
		wg.Go(func() {
			rm := remoteLib + fmt.Sprintf("d=%s; ! private \"$d\" || rm -rf -- \"$d\"", shellQuote(c.dir))
			if _, err := runSSH(ctx, r, host, rm, nil); err != nil && stderr != nil {
				fmt.Fprintf(stderr, "cape: remove the copied program from %s: %v\n", host, err)
			}
		})
	}
	wg.Wait()
}
