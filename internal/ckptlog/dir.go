package ckptlog

import (
	"crypto/hmac"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cape-go/cape/internal/safedir"
)

// LogName is the log's file name in the checkpoint directory.
const LogName = "cape.log"

// Dir is a checkpoint directory, checked private. It is safe for
// concurrent use (it holds only its path).
type Dir struct {
	path string
	key  Key // the log's key (KeyName)
}

// OpenDir opens the checkpoint directory path, creating it (mode 0700) if
// it does not exist. It refuses, with ErrUnsafeDir, a path with a component
// that another user could change (safedir), a directory that another
// user owns or that group or others may access, and a log file in it that
// is not a regular file of this user's with no access for group or others.
func OpenDir(path string) (*Dir, error) {
	if path == "" {
		return nil, errors.New("no checkpoint directory given")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if err := checkDir(abs, true); err != nil {
		return nil, err
	}
	d := &Dir{path: abs}
	if d.key, err = loadKey(abs); err != nil {
		return nil, err
	}
	return d, nil
}

// CheckDir reports what OpenDir would refuse in the directory path if it
// exists, creating nothing: a launcher asks it before building and
// starting a job, so that a mistake costs a second, not a start-up. A
// path that does not exist passes (OpenDir creates it).
func CheckDir(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(abs); errors.Is(err, fs.ErrNotExist) {
		// Made at the start (mode 0700) inside its parent, which must be.
		if fi, err := os.Stat(filepath.Dir(abs)); err != nil || !fi.IsDir() {
			return fmt.Errorf("%s cannot be made: the directory above it, %s, does not exist", abs, filepath.Dir(abs))
		}
		return nil
	}
	return checkDir(abs, false)
}

// checkDir checks the directory abs and its log file as OpenDir's comment
// says, creating abs (mode 0700) if create is set and it is missing.
func checkDir(abs string, create bool) error {
	if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
		return fmt.Errorf("%s is a file, not a directory", abs)
	}
	if err := safedir.Check(abs, safedir.Options{Create: create, Deny: 0o077}); errors.Is(err, safedir.ErrUnsafe) {
		return fmt.Errorf("%w: %w", ErrUnsafeDir, err)
	} else if err != nil {
		return fmt.Errorf("checkpoint directory: %w", err)
	}
	fi, err := os.Lstat(abs) // a directory: safedir refuses anything else
	if err != nil {
		return err
	}
	if err := private(abs, fi); err != nil {
		return err
	}
	log := filepath.Join(abs, LogName)
	if fi, err := os.Lstat(log); err == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%w: %s is not a regular file", ErrUnsafeDir, log)
		}
		if err := private(log, fi); err != nil {
			return err
		}
	}
	return nil
}

// Path is the directory's absolute path.
func (d *Dir) Path() string { return d.path }

func (d *Dir) log() string { return filepath.Join(d.path, LogName) }

// Scan scans the directory's log (see ScanLog). A missing log scans as an
// empty one.
func (d *Dir) Scan(limit int64) (*Scan, error) {
	f, err := os.Open(d.log())
	if errors.Is(err, fs.ErrNotExist) {
		return &Scan{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	s, err := ScanLog(f, fi.Size(), limit, d.key)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.log(), err)
	}
	return s, nil
}

// Reader reads the payloads of a scanned log. It is not safe for
// concurrent use.
type Reader struct {
	f   *os.File
	key Key
}

// OpenReader opens the log for reading payloads at Entry offsets.
func (d *Dir) OpenReader() (*Reader, error) {
	f, err := os.Open(d.log())
	if err != nil {
		return nil, err
	}
	return &Reader{f: f, key: d.key}, nil
}

// Payload reads e's payload into a new slice, and checks its MAC again
// (the file may have changed since the scan); the caller parses the
// payload, which checks its structure.
func (r *Reader) Payload(e Entry) ([]byte, error) {
	return r.PayloadInto(nil, e)
}

// PayloadInto is Payload reading into buf's storage when it is large
// enough (a replay reads one record per region: reusing the storage spares
// the page faults of fresh memory).
func (r *Reader) PayloadInto(buf []byte, e Entry) ([]byte, error) {
	b := buf[:0]
	if int64(cap(b)) < e.Len {
		b = make([]byte, e.Len)
	}
	b = b[:e.Len]
	var head [frameHead]byte
	if _, err := r.f.ReadAt(head[:], e.Off-frameHead); err != nil {
		return nil, fmt.Errorf("read record at offset %d: %w", e.Off, err)
	}
	if _, err := r.f.ReadAt(b, e.Off); err != nil && !(errors.Is(err, io.EOF) && len(b) == 0) {
		return nil, fmt.Errorf("read record at offset %d: %w", e.Off, err)
	}
	h, err := parseHead(head[:], e.Len)
	if err != nil || h.kind != e.Kind || int64(h.n) != e.Len {
		return nil, fmt.Errorf("record at offset %d: its head changed since the scan", e.Off)
	}
	if m := r.key.mac(head[:], b); !hmac.Equal(m[:], h.mac[:]) {
		return nil, fmt.Errorf("record at offset %d: %w", e.Off, errAltered)
	}
	return b, nil
}

// Close closes the reader.
func (r *Reader) Close() error { return r.f.Close() }

// createFile writes frames to a new file that replaces the log atomically:
// a temporary file, fdatasync, rename over the log, fsync of the
// directory. It returns the new log, open for appending, and its size.
func (d *Dir) createFile(frames ...[]byte) (*os.File, int64, error) {
	tmp := d.log() + ".tmp"
	_ = os.Remove(tmp)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, 0, err
	}
	var n int64
	for _, fr := range frames {
		k, err := f.Write(fr)
		n += int64(k)
		if err != nil {
			f.Close()
			return nil, 0, err
		}
	}
	if err := syncData(f); err != nil {
		f.Close()
		return nil, 0, err
	}
	if err := os.Rename(tmp, d.log()); err != nil {
		f.Close()
		return nil, 0, err
	}
	if err := syncDir(d.path); err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, n, nil
}

// AppendFrame appends a frame of kind k holding payload, authenticated by
// the directory's key, to dst.
func (d *Dir) AppendFrame(dst []byte, k Kind, payload []byte) []byte {
	return AppendFrame(dst, k, payload, d.key)
}

// Create starts a new log holding only the header h, replacing any log in
// the directory, and returns its writer.
func (d *Dir) Create(h Header) (*Writer, error) {
	f, n, err := d.createFile(d.AppendFrame(nil, KindHeader, AppendHeader(nil, h)))
	if err != nil {
		return nil, fmt.Errorf("create checkpoint log: %w", err)
	}
	return newWriter(d, f, n), nil
}

// Append opens the existing log to append after its intact prefix, which
// ends at end (Scan.End): a torn tail is cut off first, and the cut synced.
func (d *Dir) Append(end int64) (*Writer, error) {
	f, err := os.OpenFile(d.log(), os.O_WRONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("open checkpoint log: %w", err)
	}
	if err := f.Truncate(end); err != nil {
		f.Close()
		return nil, fmt.Errorf("drop the torn tail of the checkpoint log: %w", err)
	}
	if err := syncData(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("sync checkpoint log: %w", err)
	}
	if _, err := f.Seek(end, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return newWriter(d, f, end), nil
}
