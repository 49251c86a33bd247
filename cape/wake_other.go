//go:build !linux

package cape

import "time"

// evfd is Linux's eventfd waker; elsewhere the waker is a channel.
type evfd struct{}

func newEvfd() *evfd { return nil }

func (*evfd) signal()        {}
func (*evfd) clear()         {}
func (*evfd) wait(time.Time) {}
