// Package testenv owns one rule of the project's tests: a test that needs
// something the machine lacks (a kernel feature, a privilege, a tool)
// skips saying what is missing, and with CAPE_TEST_STRICT=1 in the
// environment (CI, which runs as root on a recent kernel with every tool
// installed) that skip is a failure, so that no skipped test counts as
// passing there.
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
