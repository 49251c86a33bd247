//go:build !linux

package wake

import "time"

// eventfd is Linux's waker; elsewhere the Waker is a channel.
type eventfd struct{}

func newEventfd() *eventfd { return nil }

func (*eventfd) signal()        {}
func (*eventfd) clear()         {}
func (*eventfd) wait(time.Time) {}
