package setup

import "testing"

func TestInputFailed(t *testing.T) {
	for _, c := range []struct {
		closing, lost, tolerant bool
		want                    Verdict
	}{
		{false, false, false, Fail},
		{false, false, true, Notify},
		{false, true, false, Ignore},
		{false, true, true, Ignore},
		{true, false, false, Ignore},
		{true, false, true, Ignore},
	} {
		if got := InputFailed(c.closing, c.lost, c.tolerant); got != c.want {
			t.Errorf("closing %v, lost %v, tolerant %v: %v, want %v", c.closing, c.lost, c.tolerant, got, c.want)
		}
	}
}

func TestOwnInputFailed(t *testing.T) {
	for _, c := range []struct {
		dead, closing bool
		want          Verdict
	}{
		{false, false, Fail},
		{true, false, Ignore},
		{false, true, Ignore},
		{true, true, Ignore},
	} {
		if got := OwnInputFailed(c.dead, c.closing); got != c.want {
			t.Errorf("master dead %v, closing %v: %v, want %v", c.dead, c.closing, got, c.want)
		}
	}
}
