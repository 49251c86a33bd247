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
		d, err := ParseCheckpointEvery(s)
		if err != nil {
			return fmt.Errorf("%s=%w", CheckpointEvery, err)
		}
		c.CheckpointEvery = d
	}
	return nil
}

// ParseCheckpointEvery parses the least time between two images of the log
// (cape run --checkpoint-every, CheckpointEvery): a duration, "0" meaning
// an image at every checkpoint point, which Config.CheckpointEvery holds as
// a negative time.
func ParseCheckpointEvery(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q: want a duration such as 30s or 10m, or 0 for every //cape:checkpoint point", s)
	}
	if d == 0 {
		return -1, nil
	}
	return d, nil
}
