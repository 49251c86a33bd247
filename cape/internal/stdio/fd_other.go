//go:build !linux

package stdio

import "os"

// On other systems standard input and output are left as the launcher
// gave them: only the master's program reads its input (README, "Running
// a job"), and slaves' output is not dropped.

// IsStream reports false: the master streams no input.
func IsStream() (bool, error) { return false, nil }

// DevNullStdin leaves descriptor 0 as it is.
func DevNullStdin() error { return nil }

// DropStdout leaves standard output as it is.
func DropStdout() error { return nil }

// PipeStdin returns os.ErrInvalid: this platform does not stream input.
func PipeStdin() (src, w *os.File, err error) { return nil, nil, os.ErrInvalid }

// OffStdin returns f.
func OffStdin(f *os.File) (*os.File, error) { return f, nil }
