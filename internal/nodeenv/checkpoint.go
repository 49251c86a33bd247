package nodeenv

import (
	"fmt"
	"time"

	"github.com/cape-go/cape/internal/arena"
)

// readCheckpoint reads Checkpoint, Restart, CheckpointMax and
// CheckpointEvery.
func (c *Config) readCheckpoint(get func(string) string) error {
	c.Checkpoint = get(Checkpoint)
	switch s := get(Restart); s {
	case "", "0":
	case "1":
		c.Restart = true
	default:
		return fmt.Errorf("%s=%q: want 1 or 0", Restart, s)
	}
	if s := get(CheckpointMax); s != "" {
		n, err := arena.ParseSize(s)
		if err != nil {
			return fmt.Errorf("%s=%q: want a positive number of bytes with an optional K, M, G or T suffix", CheckpointMax, s)
		}
		c.CheckpointMax = int64(n)
	}
	if s := get(CheckpointEvery); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return fmt.Errorf("%s=%q: want a duration such as 30s or 10m, or 0 for every checkpoint point", CheckpointEvery, s)
		}
		c.CheckpointEvery = d
		if d == 0 {
			c.CheckpointEvery = -1
		}
	}
	return nil
}
