//go:build unix && !linux

package monitor

import "golang.org/x/sys/unix"

const twinMapFlags = unix.MAP_PRIVATE | unix.MAP_ANON
