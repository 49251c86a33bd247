package nodeenv

import (
	"fmt"
	"os"
	"strconv"
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
	return os.NewFile(uintptr(fd), "cape-lifeline"), nil
}
