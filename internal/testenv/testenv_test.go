package testenv

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that records how the test ended; like testing's,
// its Skip and Fatalf end the goroutine.
type recorder struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (r *recorder) Helper() {}

func (r *recorder) Skip(args ...any) {
	r.skipped, r.msg = true, fmt.Sprint(args...)
	runtime.Goexit()
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failed, r.msg = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestSkip(t *testing.T) {
	for _, strict := range []string{"", "0", "1"} {
		t.Setenv(StrictEnv, strict)
		r := &recorder{TB: t}
		done := make(chan struct{})
		go func() {
			defer close(done)
			Skip(r, "the %s backend needs Linux 6.7", "uffd")
		}()
		<-done
		if !strings.Contains(r.msg, "the uffd backend needs Linux 6.7") {
			t.Errorf("%s=%q: message %q does not say what is missing", StrictEnv, strict, r.msg)
		}
		if want := strict == "1"; r.failed != want || r.skipped == want {
			t.Errorf("%s=%q: failed %t, skipped %t", StrictEnv, strict, r.failed, r.skipped)
		}
	}
}

func TestFull(t *testing.T) {
	t.Setenv(StrictEnv, "1") // a long case is skipped, not failed, even under strict
	for _, full := range []string{"", "0", "1"} {
		t.Setenv(FullEnv, full)
		r := &recorder{TB: t}
		done := make(chan struct{})
		go func() {
			defer close(done)
			Full(r)
		}()
		<-done
		want := full != "1"
		if r.skipped != want || r.failed || IsFull() == want {
			t.Errorf("%s=%q: skipped %t (want %t), failed %t, IsFull %t", FullEnv, full, r.skipped, want, r.failed, IsFull())
		}
		if want && !strings.Contains(r.msg, FullEnv+"=1 runs it") {
			t.Errorf("%s=%q: skip message %q does not name the switch", FullEnv, full, r.msg)
		}
	}
}
