//go:build !unix

package cape

import "time"

// killSelf ends the node at once.
func killSelf() { exit(137, "") }

// stopSelf has no equivalent outside Unix: the caller then waits forever.
func stopSelf() {}

// pauseSelf sleeps for d: a node that stops answering for a while.
func pauseSelf(d time.Duration) { time.Sleep(d) }
