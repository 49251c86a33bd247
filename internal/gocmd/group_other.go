//go:build !unix

package gocmd

import "os/exec"

// ownGroup leaves cmd as it is: process groups are a Unix notion.
func ownGroup(cmd *exec.Cmd) {}
