package safedir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Open opens the directory path by a walk from "/" that follows no
// symbolic link and refuses, with an UnsafeError, a component that another
// user than root and the caller owns, or that group or others may write
// (allowed for a sticky directory before the last component), and a last
// component that the caller does not own or that has a permission bit of
// opt.Deny. It creates missing components as opt says.
func Open(path string, opt Options) (*Dir, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	fd, err := unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open /: %w", err)
	}
	names := strings.Split(strings.TrimPrefix(abs, "/"), "/")
	if abs == "/" {
		names = nil
	}
	cur := "/"
	if err := checkDir(fd, cur, len(names) == 0, opt); err != nil {
		unix.Close(fd)
		return nil, err
	}
	for i, name := range names {
		last := i == len(names)-1
		next := filepath.Join(cur, name)
		nfd, err := openAt(fd, name, next, last && opt.Create || !last && opt.Parents)
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

// openAt opens the directory name in dirfd without following a symbolic
// link, creating it (mode 0700) when missing and create is set; full is
// its path for errors.
func openAt(dirfd int, name, full string, create bool) (int, error) {
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	fd, err := unix.Openat(dirfd, name, flags, 0)
	if errors.Is(err, unix.ENOENT) && create {
		if err := unix.Mkdirat(dirfd, name, 0o700); err != nil && !errors.Is(err, unix.EEXIST) {
			return -1, fmt.Errorf("create %s: %w", full, err)
		}
		fd, err = unix.Openat(dirfd, name, flags, 0)
	}
	switch {
	case err == nil:
		return fd, nil
	case errors.Is(err, unix.ELOOP), errors.Is(err, unix.ENOTDIR):
		var st unix.Stat_t
		if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return -1, &UnsafeError{Path: full, Reason: "is a symbolic link (give the path it points to)"}
		}
		return -1, &UnsafeError{Path: full, Reason: "is not a directory"}
	}
	return -1, fmt.Errorf("open %s: %w", full, err)
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
		return &UnsafeError{Path: path, Reason: fmt.Sprintf("has mode %04o: it must deny %04o (chmod go-rwx %s)", perm, opt.deny(), path)}
	case perm&0o022 != 0 && !sticky:
		return &UnsafeError{Path: path, Reason: fmt.Sprintf("has mode %04o: group or others may write it, and it is not sticky, so they could rename what it holds", perm)}
	}
	return nil
}
