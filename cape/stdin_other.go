//go:build !linux

package cape

import "os"

// On other systems standard input is left as the launcher gave it: only
// the master's program reads it (README, "Running a job").

func stdinIsStream() (bool, error) { return false, nil }

func devNullStdin() error { return nil }

func pipeStdin() (src, w *os.File, err error) { return nil, nil, os.ErrInvalid }

func offStdin(f *os.File) (*os.File, error) { return f, nil }
