//go:build unix && !linux

package monitor

// uffdModeConfigs is empty: there is no uffd backend here.
var uffdModeConfigs []benchConfig
