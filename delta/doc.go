// Package delta owns CAPE's delta format.
package delta

// Delta is a placeholder until the package lands.
type Delta struct{}
