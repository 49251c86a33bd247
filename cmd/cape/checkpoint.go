package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cape-go/cape/internal/arena"
	"github.com/cape-go/cape/internal/ckptlog"
	"github.com/cape-go/cape/internal/nodeenv"
)

// checkpointConfig checks --checkpoint, --restart, --checkpoint-max and
// --checkpoint-every and returns them as the nodes' configuration. The
// directory is made absolute: the master runs on this machine, in another
// working directory.
func (f *runFlags) checkpointConfig() (nodeenv.Config, error) {
	var c nodeenv.Config
	if f.checkpoint == "" {
		switch {
		case f.restart:
			return c, usagef("run: --restart needs --checkpoint DIR, the directory of the log to restart from")
		case f.checkpointMax != "":
			return c, usagef("run: --checkpoint-max needs --checkpoint DIR")
		case f.checkpointEvery != "":
			return c, usagef("run: --checkpoint-every needs --checkpoint DIR")
		}
		return c, nil
	}
	if f.transfer == "lazy" && f.restart {
		return c, usagef("run: --restart needs the eager transfer (a replayed region is sent whole): drop --transfer lazy")
	}
	dir, err := filepath.Abs(f.checkpoint)
	if err != nil {
		return c, usagef("run: --checkpoint %s: %v", f.checkpoint, err)
	}
	if _, err := os.Stat(dir); f.restart && errors.Is(err, fs.ErrNotExist) {
		// A mistyped directory would start the whole job over.
		return c, usagef("run: --restart: %s does not exist, so there is no log to restart from; to start the job afresh with a log there, make it first (mkdir -p %s; a batch script can then always pass --restart) or drop --restart", f.checkpoint, f.checkpoint)
	}
	if err := ckptlog.CheckDir(dir); err != nil {
		// Found now, not after the build and the nodes' start.
		return c, usagef("run: --checkpoint %s: %v", f.checkpoint, err)
	}
	c.Checkpoint, c.Restart = dir, f.restart
	if f.checkpointMax != "" {
		n, err := arena.ParseSize(f.checkpointMax)
		if err != nil {
			return c, usagef("run: --checkpoint-max %q: want a positive number of bytes with an optional K, M, G or T suffix", f.checkpointMax)
		}
		c.CheckpointMax = int64(n)
	}
	if f.checkpointEvery != "" {
		d, err := nodeenv.ParseCheckpointEvery(f.checkpointEvery)
		if err != nil {
			return c, usagef("run: --checkpoint-every %v", err)
		}
		c.CheckpointEvery = d
	}
	return c, nil
}
