//go:build !unix

package transport

import "net"

// hasInput reports whether bytes wait unread on nc: not known here.
func hasInput(net.Conn) bool { return false }
