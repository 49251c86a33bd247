package nodeenv

import (
	"strings"
	"testing"
	"time"

	"github.com/cape-go/cape/internal/arena"
)

// TestTypedRuntimeSettings checks that the settings the runtime needs come
// back parsed and validated: the peer timeout as a duration, the arena size
// in bytes; bad values are errors naming the variable.
func TestTypedRuntimeSettings(t *testing.T) {
	t.Setenv(Rank, "0")
	t.Setenv(Size, "1")
	t.Setenv(Timeout, "3s")
	t.Setenv(Broadcast, "chain")
	c, err := Read()
	if err != nil || c.PeerTimeout != 3*time.Second || c.Broadcast != "chain" {
		t.Fatalf("Read = %+v, %v; want PeerTimeout 3s, Broadcast chain", c, err)
	}
	if env := strings.Join(Environ(*c), " "); !strings.Contains(env, Timeout+"=3s") {
		t.Errorf("Environ %q does not pass the timeout on", env)
	}
	for _, bad := range []string{"soon", "-1s", "0"} {
		t.Setenv(Timeout, bad)
		if _, err := Read(); err == nil || !strings.Contains(err.Error(), Timeout) {
			t.Errorf("%s=%q: %v, want an error naming %s", Timeout, bad, err, Timeout)
		}
	}
	t.Setenv(arena.SizeEnv, "2G")
	if n, err := ArenaSize(); err != nil || n != 2<<30 {
		t.Errorf("ArenaSize = %d, %v; want 2 GiB", n, err)
	}
	t.Setenv(arena.SizeEnv, "lots")
	if _, err := ArenaSize(); err == nil || !strings.Contains(err.Error(), arena.SizeEnv) {
		t.Errorf("ArenaSize of %q: %v, want an error naming %s", "lots", err, arena.SizeEnv)
	}
	t.Setenv(Fault, "node=1,at=start,do=exit")
	if FaultSpec() != "node=1,at=start,do=exit" {
		t.Errorf("FaultSpec = %q", FaultSpec())
	}
}

// TestInheritedFileIsShared checks that the token and the lifeline, which
// share descriptor 0 under ssh, get one *os.File: a second one would close
// the descriptor under the other when the collector frees it.
func TestInheritedFileIsShared(t *testing.T) {
	t.Setenv(Lifeline, "0")
	f, err := lifeline()
	if err != nil {
		t.Fatal(err)
	}
	if g := inherited(0); f != g {
		t.Fatalf("two *os.File for descriptor 0: %p and %p", f, g)
	}
}

// TestMaxLost checks CAPE_MAX_LOST: unset means no cap (-1), a number is
// passed on by Environ, and anything else is an error naming the variable.
func TestMaxLost(t *testing.T) {
	t.Setenv(Rank, "0")
	t.Setenv(Size, "1")
	c, err := Read()
	if err != nil || c.MaxLost != -1 {
		t.Fatalf("unset: MaxLost %d, %v; want -1", c.MaxLost, err)
	}
	t.Setenv(MaxLost, "2")
	if c, err = Read(); err != nil || c.MaxLost != 2 {
		t.Fatalf("2: MaxLost %d, %v", c.MaxLost, err)
	}
	c.MaxLost = 0
	if env := strings.Join(Environ(*c), " "); !strings.Contains(env, MaxLost+"=0") {
		t.Errorf("Environ %q does not pass --max-lost 0 on", env)
	}
	t.Setenv(MaxLost, "some")
	if _, err := Read(); err == nil || !strings.Contains(err.Error(), MaxLost) {
		t.Errorf("some: %v, want an error naming %s", err, MaxLost)
	}
}

// TestCheckpointEvery checks CAPE_CHECKPOINT_EVERY through Environ and
// Read: a time is passed on as it is, "every point" (a negative time) as
// 0s and read back as a negative time; unset is 0 (the default), and a
// negative or malformed value is an error naming the variable.
func TestCheckpointEvery(t *testing.T) {
	t.Setenv(Rank, "0")
	t.Setenv(Size, "1")
	for _, d := range []time.Duration{0, 90 * time.Second, -1} {
		t.Setenv(CheckpointEvery, "")
		for _, kv := range Environ(Config{CheckpointEvery: d}) {
			if k, v, _ := strings.Cut(kv, "="); k == CheckpointEvery {
				t.Setenv(k, v)
			}
		}
		c, err := Read()
		if err != nil || (c.CheckpointEvery < 0) != (d < 0) || d >= 0 && c.CheckpointEvery != d {
			t.Errorf("%v: read back %v, %v", d, c.CheckpointEvery, err)
		}
	}
	for _, bad := range []string{"-1s", "often"} {
		t.Setenv(CheckpointEvery, bad)
		if _, err := Read(); err == nil || !strings.Contains(err.Error(), CheckpointEvery) {
			t.Errorf("%s: %v, want an error naming %s", bad, err, CheckpointEvery)
		}
	}
}
