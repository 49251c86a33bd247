package ckptlog

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// KeyName is the key file's name in the checkpoint directory.
const KeyName = "cape.key"

// keySize is the key's length in bytes.
const keySize = 32

// loadKey returns the key of the checkpoint directory dir (checked private
// by the caller), creating it (32 random bytes, mode 0600) if it is
// missing. A key file that is not a regular file of this user's with no
// access for group or others, or not 32 bytes long, is refused: whoever
// could read it could forge the log, whoever could replace it could make a
// forged log pass.
func loadKey(dir string) (Key, error) {
	path := filepath.Join(dir, KeyName)
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		if err := createKey(path); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("create the log's key: %w", err)
		}
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrUnsafeDir, path)
	}
	if err := private(path, fi); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if ofi, err := f.Stat(); err != nil || !os.SameFile(fi, ofi) {
		return nil, fmt.Errorf("%w: %s changed while it was opened", ErrUnsafeDir, path)
	}
	key := make([]byte, keySize+1)
	n, err := io.ReadFull(f, key)
	switch {
	case n > keySize:
		return nil, fmt.Errorf("%s: a key of more than %d bytes, want %d", path, keySize, keySize)
	case n != keySize || !errors.Is(err, io.ErrUnexpectedEOF):
		return nil, fmt.Errorf("%s: a key of %d bytes, want %d", path, n, keySize)
	}
	return Key(key[:keySize]), nil
}

// createKey writes a new random key to path, which must not exist. The
// key is written and synced under a temporary name, then linked to path,
// so that a process reading path never sees it partly written; the link
// fails with fs.ErrExist when another process created path first.
func createKey(path string) error {
	key := make([]byte, keySize)
	if _, err := rand.Read(key); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+KeyName+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(key)
	if err == nil {
		err = syncData(f)
	}
	if err = errors.Join(err, f.Close()); err != nil {
		return err
	}
	return os.Link(f.Name(), path)
}
