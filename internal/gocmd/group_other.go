//go:build !unix

package gocmd

import (
	"os"
	"os/exec"
)

// ownGroup leaves cmd as it is: process groups are a Unix notion.
func ownGroup(cmd *exec.Cmd) {}

// processAlive reports true: without a portable probe, a directory is
// never taken for an orphan.
func processAlive(pid int) bool { return true }

// ownedByMe reports false: without a portable owner, nothing is removed.
func ownedByMe(fi os.FileInfo) bool { return false }
