//go:build !linux

package clustertest

import (
	"os/exec"
	"testing"

	"github.com/cape-go/cape/internal/testenv"
)

// New skips t: the harness needs Linux network namespaces and root.
func New(t testing.TB, o Options) *Cluster {
	t.Helper()
	testenv.Skip(t, "the multi-host harness needs Linux")
	return nil
}

// Exec runs a command here.
func (c *Cluster) Exec(i int, name string, args ...string) *exec.Cmd {
	return exec.Command(name, args...)
}
