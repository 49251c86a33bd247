package nodeenv

import (
	"fmt"
	"io"
	"os"
	"strconv"
)

// lifelineExit is the status of a node stopped because its launcher went
// away: 128+SIGTERM, as if it had been terminated.
const lifelineExit = 143

// watchLifeline starts, when Lifeline names a file descriptor, a goroutine
// that reads it until EOF or an error and then ends the process. The ssh
// launcher keeps ssh's stdin open for the whole job and closes it to stop
// the node; if the launcher or the ssh connection dies, sshd closes the
// node's stdin the same way. Without it a remote node would outlive its job
// (sshd sends no signal to a command that has no terminal).
func watchLifeline(rank int) error {
	s := os.Getenv(Lifeline)
	if s == "" {
		return nil
	}
	fd, err := strconv.Atoi(s)
	if err != nil || fd < 0 {
		return fmt.Errorf("%s=%q: want a file descriptor number", Lifeline, s)
	}
	f := os.NewFile(uintptr(fd), "cape-lifeline")
	go func() {
		_, _ = io.Copy(io.Discard, f)
		fmt.Fprintf(os.Stderr, "cape: node %d: the launcher's connection closed; stopping\n", rank)
		os.Exit(lifelineExit)
	}()
	return nil
}
