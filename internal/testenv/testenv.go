// Package testenv owns one rule of the project's tests: a test that needs
// something the machine lacks (a kernel feature, a privilege, a tool)
// skips saying what is missing, and with CAPE_TEST_STRICT=1 in the
// environment (CI, which runs as root on a recent kernel with every tool
// installed) that skip is a failure, so that no skipped test counts as
// passing there.
//
// It owns a second switch: CAPE_TEST_FULL=1 runs the long end-to-end cases
// (every fault point, every node count) that a plain `go test ./...` leaves
// out so that a newcomer waits minutes, not ten; each has a faster
// representative in the default run, and CI sets the switch.
package testenv

import (
	"fmt"
	"os"
	"testing"
)

// StrictEnv names the variable that turns skips into failures.
const StrictEnv = "CAPE_TEST_STRICT"

// Strict reports whether a missing requirement must fail the test.
func Strict() bool { return os.Getenv(StrictEnv) == "1" }

// Skip skips t with the message format, args, which should say what is
// missing and how to get it; under CAPE_TEST_STRICT=1 it fails t instead.
func Skip(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if Strict() {
		t.Fatalf("%s (%s=1: a missing requirement is a failure)", msg, StrictEnv)
	}
	t.Skip(msg)
}

// FullEnv names the variable that runs the long end-to-end cases: CI sets
// CAPE_TEST_FULL=1 (.ci/run); a plain `go test ./...` leaves them out.
const FullEnv = "CAPE_TEST_FULL"

// IsFull reports whether the long end-to-end cases run (CAPE_TEST_FULL=1).
func IsFull() bool { return os.Getenv(FullEnv) == "1" }

// Full skips t unless CAPE_TEST_FULL=1. It is a plain skip, never
// turned into a failure by CAPE_TEST_STRICT: nothing is missing, the case
// is only long, and its behaviour has a faster representative in the
// default run. CI sets both variables, so there it always runs.
func Full(t testing.TB) {
	t.Helper()
	if !IsFull() {
		t.Skip("long end-to-end case; " + FullEnv + "=1 runs it (CI sets it)")
	}
}
