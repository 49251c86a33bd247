package nodeenv

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
)

// Listen returns the master's listener: the inherited ListenFD under a
// cape launcher, else a new one on c.Master. When that address is taken
// (another program, perhaps another user's, holds the port), the error
// names the port, where it came from and Port, the variable that chooses
// another; the tasks cannot agree on another port by themselves.
func Listen(c *Config) (net.Listener, error) {
	if c.ListenFD >= 0 {
		f := os.NewFile(uintptr(c.ListenFD), "cape-listener")
		ln, err := net.FileListener(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("inherited listener %s=%d: %w", ListenFD, c.ListenFD, err)
		}
		return ln, nil
	}
	ln, err := net.Listen("tcp", c.Master)
	if errors.Is(err, syscall.EADDRINUSE) {
		_, port, _ := net.SplitHostPort(c.Master)
		from := "given"
		switch c.PortFrom {
		case "derived":
			from = "derived from the " + c.Scheduler + " job id"
		case Port, Master:
			from = "from " + c.PortFrom
		}
		return nil, fmt.Errorf("listen on %s: port %s (%s) is in use by another program: set %s to a free port in every task's environment: %w",
			c.Master, port, from, Port, syscall.EADDRINUSE)
	}
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", c.Master, err)
	}
	return ln, nil
}
