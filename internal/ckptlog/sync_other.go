//go:build !linux

package ckptlog

import "os"

func fdatasync(f *os.File) error { return f.Sync() }
