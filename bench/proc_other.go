//go:build !linux

package bench

import "os/exec"

// killAll kills cmds.
func killAll(cmds []*exec.Cmd) {
	for _, c := range cmds {
		if c.Process != nil {
			_ = c.Process.Kill()
		}
	}
}

// setGroup does nothing outside Linux: commands are killed one by one.
func setGroup(cmd *exec.Cmd) {}
