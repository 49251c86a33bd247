//go:build !linux

package bench

import (
	"errors"
	"fmt"
	"net"
	"time"
)

// acrossCPUs needs Linux's CPU affinity.
func acrossCPUs(func(pinSelf func() error) (RTT, error)) (RTT, error) {
	return RTT{}, fmt.Errorf("round trip across CPUs: %w (needs Linux)", ErrNoCPUPair)
}

func blockingPingPong(net.Conn, int) ([]time.Duration, error) {
	return nil, errors.New("round trip across CPUs: needs Linux")
}
