package nodeenv

import (
	"fmt"
	"os"
	"strconv"
	"sync"
)

// LifelineExit is the status of a node stopped because its launcher went
// away: 128+SIGTERM, as if it had been terminated.
const LifelineExit = 143

// lifeline opens, when Lifeline names a file descriptor, the file the node
// reads until EOF or an error and then ends (Config.Lifeline). The ssh
// launcher keeps ssh's stdin open for the whole job and closes it to stop
// the node; if the launcher or the ssh connection dies, sshd closes the
// node's stdin the same way. Without it a remote node would outlive its job
// (sshd sends no signal to a command that has no terminal).
func lifeline() (*os.File, error) {
	s := os.Getenv(Lifeline)
	if s == "" {
		return nil, nil
	}
	fd, err := strconv.Atoi(s)
	if err != nil || fd < 0 {
		return nil, fmt.Errorf("%s=%q: want a file descriptor number", Lifeline, s)
	}
	return inherited(fd), nil
}

var (
	filesMu sync.Mutex
	// filesMu protects the following field.
	files = map[int]*os.File{}
)

// inherited returns the one *os.File of an inherited descriptor. Under ssh
// the token and the lifeline share descriptor 0: two Files for it would
// not do, since a File closes its descriptor when the collector frees it,
// and the lifeline would then read a closed (or reused) descriptor.
func inherited(fd int) *os.File {
	filesMu.Lock()
	defer filesMu.Unlock()
	f, ok := files[fd]
	if !ok {
		f = os.NewFile(uintptr(fd), "cape-fd-"+strconv.Itoa(fd))
		files[fd] = f
	}
	return f
}
