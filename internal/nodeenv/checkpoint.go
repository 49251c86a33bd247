package nodeenv

import (
	"fmt"

	"github.com/cape-go/cape/internal/arena"
)

// readCheckpoint reads Checkpoint, Restart and CheckpointMax.
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
	return nil
}
