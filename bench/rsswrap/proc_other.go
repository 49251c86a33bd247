//go:build !linux

package main

import (
	"os"
	"syscall"
)

// inheritedFiles passes no descriptor but the standard streams here.
func inheritedFiles() []*os.File { return nil }

func childAttr() *syscall.SysProcAttr { return nil }

// peakKB is not known here.
func peakKB(*os.ProcessState) (int64, bool) { return 0, false }

func exitAs(st *os.ProcessState) int {
	if c := st.ExitCode(); c >= 0 {
		return c
	}
	return 1
}
