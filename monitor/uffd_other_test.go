//go:build unix && !linux

package monitor

import "testing"

// uffdModeConfigs is empty: there is no uffd backend here.
var uffdModeConfigs []benchConfig

// reportCosts does nothing: there is no uffd backend here.
func reportCosts(*testing.B, Tracker) {}
