package safedir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// maxLinks bounds the symbolic links one Open follows (the kernel's own
// limit, ELOOP).
const maxLinks = 40

// Open opens the directory path by a walk from "/", one openat at a time,
// and refuses, with an UnsafeError, a component that another user than
// root and the caller owns, or that group or others may write (allowed for
// a sticky directory before the last component), and a last component that
// the caller does not own or that has a permission bit of opt.Deny. A
// symbolic link before the last component is followed only if root or the
// caller owns it (its directory is checked already, so no one else can
// replace it), and its target is walked under the same rules (a cluster's
// /home -> /gpfs/home); the last component must not be one.
// It creates missing components as opt says.
func Open(path string, opt Options) (*Dir, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	fd, err := unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open /: %w", err)
	}
	names := splitPath(abs)
	cur := "/"
	if err := checkDir(fd, cur, len(names) == 0, opt); err != nil {
		unix.Close(fd)
		return nil, err
	}
	links := 0
	for len(names) > 0 {
		name := names[0]
		names = names[1:]
		last := len(names) == 0
		next := filepath.Join(cur, name)
		nfd, target, err := openAt(fd, name, next, last && opt.Create || !last && opt.Parents)
		if err == nil && target != "" {
			if last {
				err = &UnsafeError{Path: next, Reason: "is a symbolic link (give the path it points to)"}
			} else if links++; links > maxLinks {
				err = &UnsafeError{Path: next, Reason: "too many levels of symbolic links"}
			} else {
				names = append(splitPath(target), names...)
				if filepath.IsAbs(target) {
					unix.Close(fd)
					if fd, err = unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err != nil {
						return nil, fmt.Errorf("open /: %w", err)
					}
					cur = "/"
				}
				continue
			}
		}
		unix.Close(fd)
		if err != nil {
			return nil, err
		}
		fd, cur = nfd, next
		if err := checkDir(fd, cur, last, opt); err != nil {
			unix.Close(fd)
			return nil, err
		}
	}
	return &Dir{path: abs, f: os.NewFile(uintptr(fd), abs)}, nil
}

// splitPath returns the components of a path ("." and empty ones left out).
func splitPath(p string) []string {
	var names []string
	for _, n := range strings.Split(p, "/") {
		if n != "" && n != "." {
			names = append(names, n)
		}
	}
	return names
}

// openAt opens the directory name in dirfd without following a symbolic
// link, creating it (mode 0700) when missing and create is set; full is
// its path for errors. A symbolic link that root or the caller owns is not
// opened: its target is returned instead, for the caller to walk.
func openAt(dirfd int, name, full string, create bool) (fd int, target string, err error) {
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	fd, err = unix.Openat(dirfd, name, flags, 0)
	if errors.Is(err, unix.ENOENT) && create {
		if err := unix.Mkdirat(dirfd, name, 0o700); err != nil && !errors.Is(err, unix.EEXIST) {
			return -1, "", fmt.Errorf("create %s: %w", full, err)
		}
		fd, err = unix.Openat(dirfd, name, flags, 0)
	}
	switch {
	case err == nil:
		return fd, "", nil
	case errors.Is(err, unix.ELOOP), errors.Is(err, unix.ENOTDIR):
		var st unix.Stat_t
		if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFLNK {
			return -1, "", &UnsafeError{Path: full, Reason: "is not a directory"}
		}
		if me := uint32(os.Geteuid()); st.Uid != 0 && st.Uid != me {
			return -1, "", &UnsafeError{Path: full, Reason: fmt.Sprintf("is a symbolic link owned by uid %d, neither root nor you (uid %d)", st.Uid, me)}
		}
		buf := make([]byte, unix.PathMax)
		n, err := unix.Readlinkat(dirfd, name, buf)
		if err != nil {
			return -1, "", fmt.Errorf("read the link %s: %w", full, err)
		}
		if n == 0 {
			return -1, "", &UnsafeError{Path: full, Reason: "is an empty symbolic link"}
		}
		return -1, string(buf[:n]), nil
	}
	return -1, "", fmt.Errorf("open %s: %w", full, err)
}

// checkDir checks the owner and mode of the directory open as fd.
func checkDir(fd int, path string, last bool, opt Options) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	me := uint32(os.Geteuid())
	perm := os.FileMode(st.Mode & 0o777)
	sticky := st.Mode&unix.S_ISVTX != 0
	switch {
	case st.Uid != 0 && st.Uid != me:
		return &UnsafeError{Path: path, Reason: fmt.Sprintf("is owned by uid %d, neither root nor you (uid %d), who could replace what it holds", st.Uid, me)}
	case last && st.Uid != me:
		return &UnsafeError{Path: path, Reason: fmt.Sprintf("is owned by uid %d, not by you (uid %d)", st.Uid, me)}
	case last && perm&opt.deny() != 0:
		return &UnsafeError{Path: path, Reason: fmt.Sprintf("has mode %04o: %s (chmod %s %s)", perm, denyWords(opt.deny()), denyChmod(opt.deny()), path)}
	case perm&0o022 != 0 && !sticky:
		return &UnsafeError{Path: path, Reason: fmt.Sprintf("has mode %04o: group or others may write it, and it is not sticky, so they could rename what it holds", perm)}
	}
	return nil
}

// denyWords says in words what the permission bits deny forbid.
func denyWords(deny os.FileMode) string {
	switch {
	case deny&0o077 == 0o077:
		return "group and others must have no access"
	case deny == 0o022:
		return "group and others must not write it"
	}
	return fmt.Sprintf("it must not have any of the permission bits %04o", deny)
}

// denyChmod is the chmod mode argument that clears the bits deny forbids.
func denyChmod(deny os.FileMode) string {
	switch {
	case deny&0o077 == 0o077:
		return "go-rwx"
	case deny == 0o022:
		return "go-w"
	}
	return "go-rwx"
}
