//go:build unix && !linux

package monitor

import "golang.org/x/sys/unix"

const twinMapFlags = unix.MAP_PRIVATE | unix.MAP_ANON

// adviseTwin does nothing: huge-page advice is Linux's.
func adviseTwin([]byte) {}
